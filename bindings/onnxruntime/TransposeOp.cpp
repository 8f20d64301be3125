//===- onnxruntime/TransposeOp.cpp - ttile.Transpose at the edges ---------===//

#include "TransposeOp.h"

#include <algorithm>
#include <string>
#include <vector>

namespace ttile::onnxruntime {
namespace {

/// A tile's rows and columns: 32 rows of 256 floats read, 256 runs of 32
/// written (a 3-channel image: 3 rows of 256, written in place in 3 KB).
constexpr int64_t kTileRows = 32;
constexpr int64_t kTileColumns = 256;

/// The permutation of a node, [0,2,3,1] or [0,3,1,2]: whether it takes
/// NCHW to NHWC.
bool toChannelsLast(const Ort::ConstKernelInfo &info) {
  std::vector<int64_t> perm =
      optionalAttribute<std::vector<int64_t>>(info, "perm")
          .value_or(std::vector<int64_t>{});
  if (perm == std::vector<int64_t>{0, 2, 3, 1})
    return true;
  if (perm == std::vector<int64_t>{0, 3, 1, 2})
    return false;
  throw Error("perm is " + shapeText(perm) +
              "; ttile.Transpose takes [0,2,3,1] or [0,3,1,2]");
}

/// Tile `tile` of the rows x columns matrix `source`, transposed into
/// `target` (columns x rows).
void transposeTile(const float *source, float *target, int64_t rows,
                   int64_t columns, int64_t tile) {
  const int64_t tilesAcross = (columns + kTileColumns - 1) / kTileColumns;
  const int64_t row0 = tile / tilesAcross * kTileRows;
  const int64_t column0 = tile % tilesAcross * kTileColumns;
  const int64_t rowEnd = std::min(rows, row0 + kTileRows);
  const int64_t columnEnd = std::min(columns, column0 + kTileColumns);
  for (int64_t row = row0; row < rowEnd; ++row)
    for (int64_t column = column0; column < columnEnd; ++column)
      target[column * rows + row] = source[row * columns + column];
}

} // namespace

TransposeKernel::TransposeKernel(const OrtApi &api, const OrtKernelInfo *info,
                                 const SessionSettings &)
    : api_(api), toChannelsLast_(toChannelsLast(Ort::ConstKernelInfo(info))) {}

OrtStatusPtr TransposeKernel::ComputeV2(OrtKernelContext *rawContext) {
  return computeWithStatus(api_, TransposeOp::kName, [&] {
    Ort::KernelContext context(rawContext);
    Ort::ConstValue x = context.GetInput(0);
    const std::vector<int64_t> shape = x.GetTensorTypeAndShapeInfo().GetShape();
    if (shape.size() != 4)
      throw Error("X has the shape " + shapeText(shape) +
                  "; ttile.Transpose needs 4 axes");
    // Each image is a matrix: C x HW to HW x C, or HW x C to C x HW.
    const int64_t images = shape[0];
    const int64_t rows = toChannelsLast_ ? shape[1] : shape[1] * shape[2];
    const int64_t columns = toChannelsLast_ ? shape[2] * shape[3] : shape[3];
    const std::vector<int64_t> outShape =
        toChannelsLast_
            ? std::vector<int64_t>{shape[0], shape[2], shape[3], shape[1]}
            : std::vector<int64_t>{shape[0], shape[3], shape[1], shape[2]};
    const float *source = x.GetTensorData<float>();
    float *target =
        context.GetOutput(0, outShape).GetTensorMutableData<float>();
    const int64_t tilesPerImage = (rows + kTileRows - 1) / kTileRows *
                                  ((columns + kTileColumns - 1) / kTileColumns);
    if (images * tilesPerImage == 0)
      return;
    sessionParallelFor(api_,
                       rawContext)(images * tilesPerImage, [&](int64_t task) {
      const int64_t image = task / tilesPerImage;
      transposeTile(source + image * rows * columns,
                    target + image * rows * columns, rows, columns,
                    task % tilesPerImage);
    });
  });
}

} // namespace ttile::onnxruntime
