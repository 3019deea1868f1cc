// The Eigen types of the CPU ops, named once (Eigen's StorageOrders: row-major like our
// buffers and PyTorch's tensors; the global default stays column-major).
#pragma once
#include <Eigen/Core>

namespace tx::cpu {

template <typename Real>
using RowMatrix = Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename Real>
using RowVector = Eigen::Matrix<Real, 1, Eigen::Dynamic>;

}  // namespace tx::cpu
