// The Backend interface's optional fused ops (backend.h): a backend that does not fuse them never
// gets these calls (the model asks fuses_masked_softmax() / fuses_add_norm() first), so reaching
// one is a programming error, reported with the op's name.
#include "tx/backend.h"

namespace tx {

void Backend::masked_softmax_forward(float*, const float*, const float*, int, int, int, int, float) {
    throw DeviceError(name() + " backend has no masked_softmax_forward");
}
void Backend::masked_softmax_backward(float*, const float*, const float*, const float*, int, int, int, int, float) {
    throw DeviceError(name() + " backend has no masked_softmax_backward");
}
void Backend::residual_dropout_norm_forward(float*, float*, float*, float*, float*, const float*, const float*,
                                            const float*, const float*, int, int, float, uint64_t, float) {
    throw DeviceError(name() + " backend has no residual_dropout_norm_forward");
}
void Backend::residual_dropout_norm_backward(float*, float*, float*, float*, const float*, const float*, const float*,
                                             const float*, const float*, const float*, int, int) {
    throw DeviceError(name() + " backend has no residual_dropout_norm_backward");
}
void Backend::residual_dropout_forward(float*, float*, const float*, const float*, int, float, uint64_t) {
    throw DeviceError(name() + " backend has no residual_dropout_forward");
}
void Backend::residual_dropout_backward(float*, float*, const float*, const float*, int) {
    throw DeviceError(name() + " backend has no residual_dropout_backward");
}

}  // namespace tx
