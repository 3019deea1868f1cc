// Heads that "park" their weight on the source's <eos>: the bright right-hand column a learner sees
// first in most encoder and cross-attention maps of a trained model. A head with nothing to look for
// has to put its weight somewhere (each row sums to 1); putting it on one token gives every such
// row the same value vector (BERT's heads do this on [SEP]: Clark et al. 2019, "What does BERT look
// at?"). The Attention panel counts them under its overview and says so.
#pragma once

#include "session_view.h"

namespace tx::explain {

struct EosParking {
    int heads = 0;    // heads of the encoder self- and cross-attention blocks, over every layer
    int parked = 0;   // those whose rows put more than half their weight on <eos>, on average
};

// For one batch row of the snapshot; blocks whose probabilities are not materialised (fused, or
// not reached by the cursor yet) and a decoder-only model count nothing.
EosParking eos_parking(const SessionView& view, int batch_row);

}  // namespace tx::explain
