// Checkpoint averaging: the element-wise mean of the parameters of several checkpoints of one
// model, taken from one training run a few thousand steps apart (Vaswani et al. 2017, §6.1,
// averaged the last 5 or 20 checkpoints). The mean sits nearer the centre of the region the
// optimizer wanders in late in training than any single point does.
#pragma once
#include <vector>

#include "tx/checkpoint.h"

namespace tx {

// The first checkpoint with each parameter replaced by the mean over all of them (summed in
// double, so the order of the inputs changes nothing). Throws std::invalid_argument naming the
// first input that differs from the first in its config, vocabulary or tokenizer, or when
// `checkpoints` is empty. Training settings are taken from the first.
Checkpoint average_checkpoints(const std::vector<Checkpoint>& checkpoints);

}  // namespace tx
