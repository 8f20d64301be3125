//===- Search/FamilyBinding.h - Which microkernels fit a spec ---*- C++ -*-===//
//
// Binds a spec to the microkernel family whose register tiles compute it,
// and each of the family's dimensions to the spec dimension that plays it.
// The binding reads the spec's structure, never its name or its dimension
// names, so that any spec of the same shape (a convolution built by hand, a
// contraction, a spec whose dimensions are called otherwise) gets the same
// microkernels:
//
//  - where both inputs end in the same reduction index, and one of them
//    (the vector) holds no output index of size 2 or more that the other
//    (the matrix) lacks, a matrix times a vector: the dot family,
//    vectorized along that reduction, its rows the output's last index;
//  - else the vectorized dimension is the output's last index, the one its
//    stores are contiguous along;
//  - every input indexed by it, one of them sliding a window (a depthwise
//    convolution: the image and the weights share the channel): the
//    depthwise family. The image is the input with two sliding axes (an
//    output index plus a window index); the later one in memory gives w
//    and s, the earlier one's window index is the reuse loop r;
//  - every input indexed by it, none sliding: the lanewise family, where
//    it is the last index of every tensor (each vector lane a product of
//    its own, "ikb,kjb->ijb"), over the roles of ContractionRoles.h;
//  - one input indexed by it, which slides a window along it (a depthwise
//    convolution in NCHW: the image's rows are vectors): the planar
//    family. The image's other sliding axis gives h and r, its last one w
//    (the vectorized index) and s;
//  - one input indexed by it (the reused operand: weights, B), the other
//    broadcast: gemm-shaped. With two sliding axes in the broadcast
//    operand, the conv2d family: the earlier axis gives h and r, the later
//    w and s, and c is a reduction over a plain axis of both operands.
//    Without, the matmul family over the roles of ContractionRoles.h: a
//    matmul and any contraction alike.
//
// A pointwise convolution (R = S = 1) keeps the conv2d family: its members
// with r = s = 1 are the matmul's register tiles with a second row
// dimension, and the matmul table is derived from them
// (DefaultMicrokernels.h).
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SEARCH_FAMILYBINDING_H
#define TTILE_SEARCH_FAMILYBINDING_H

#include "Search/Microkernel.h"
#include "Spec/Spec.h"

#include <optional>

namespace ttile::search {

/// A spec of the dot family: the output index the matrix's rows are (the
/// output's last), and the reduction both inputs end in.
struct DotProduct {
  spec::DimId rows = 0;
  spec::DimId reduction = 0;
};
/// The dot product `spec` is, by the first rule above; none otherwise.
std::optional<DotProduct> dotProduct(const spec::Spec &spec);

/// The family whose microkernels fit `spec`, over the spec's dimension
/// names (MicrokernelFamily::withDimNames; the name, and so the offline
/// table, stay the family's). Throws ttile::Error for a spec no family
/// describes, naming what is missing.
MicrokernelFamily familyOf(const spec::Spec &spec);

} // namespace ttile::search

#endif // TTILE_SEARCH_FAMILYBINDING_H
