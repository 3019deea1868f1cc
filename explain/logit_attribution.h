// Direct logit attribution (Elhage et al. 2021, "A Mathematical Framework for Transformer
// Circuits"): the chosen token's logit at one decoder position split into what each head (its
// context through its slice of W_O), each FFN and the embeddings write into the residual stream,
// read through the norms on the way to the generator treated as linear at the current point (each
// divides by the very σ of the actual forward). Shapes: D d_model, H heads, dk = D/H, V vocabulary.
#pragma once
#include <string>
#include <vector>

#include "inspect_model.h"

namespace tx::explain {

struct Contribution {
    std::string name;     // "embeddings", "decoder.layers.1.cross_attn.head3", "decoder.layers.1.ffn",
                          // "decoder.layers.1.input" (Post-LN: the stream the last layer starts from)
    int layer = -1;       // -1: the embeddings
    int head = -1;        // -1: not a head
    double value = 0.0;   // its share of the logit
};

struct LogitAttribution {
    std::string error;                 // why there is no result; the rest is empty then
    std::string method;                // the norms it reads through, and for Post-LN what it covers
    int position = 0, token = 0;
    std::string token_text;
    double logit = 0.0;                // the model's own generator.logits at (position, token)
    std::vector<Contribution> parts;   // in forward order
    // The rest: the generator's bias, each norm's bias, the attention output biases b_O (no head
    // owns them). Σ parts + remainder = logit, up to float rounding.
    double remainder = 0.0;
};

// Pre-LN: every layer's heads and FFN and the embeddings, through decoder.norm. Post-LN (each layer
// re-normalises the whole stream): only the last decoder layer's heads and FFN and that layer's input,
// through that layer's own norms (and decoder.norm where final_norm adds one); the earlier layers
// are inside "input" and cannot be separated honestly. position -1: the last position; token -1:
// the most probable token there.
LogitAttribution logit_attribution(InspectModel& model, const InspectInput& in, int position = -1, int token = -1);

}  // namespace tx::explain
