// The Backend interface's optional ops (backend.h): a backend that does not fuse them, or has no
// relative bias, never gets these calls (the model asks fuses_masked_softmax(), fuses_add_norm()
// or has_relative_bias() first), so reaching one is a programming error, reported with its name.
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
void Backend::relative_bias_forward(float*, const float*, const float*, int, int, int, int, int, bool) {
    throw DeviceError(name() + " backend has no relative_bias_forward");
}
void Backend::relative_bias_backward(float*, const float*, int, int, int, int, int, bool) {
    throw DeviceError(name() + " backend has no relative_bias_backward");
}

}  // namespace tx
