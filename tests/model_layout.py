"""Our parameter names and shapes in core/model/parameters.cpp order (docs/design.md §4), for the
fixture generators: one list, so the golden-forward and gradient fixtures cannot disagree."""


def parameter_table(vocab, d_model, d_ff, layers, pre_ln):
    """[(name, shape)] of a model with `layers` encoder and decoder layers."""
    V, D, F = vocab, d_model, d_ff
    t = [("src_embed.weight", [V, D]), ("tgt_embed.weight", [V, D])]

    def attention(p):
        for proj in ("q_proj", "k_proj", "v_proj", "out_proj"):
            t.append((f"{p}.{proj}.weight", [D, D]))
            t.append((f"{p}.{proj}.bias", [D]))

    def norm(p):
        t.append((f"{p}.weight", [D]))
        t.append((f"{p}.bias", [D]))

    def ffn(p):
        t.extend([(f"{p}.linear1.weight", [F, D]), (f"{p}.linear1.bias", [F]),
                  (f"{p}.linear2.weight", [D, F]), (f"{p}.linear2.bias", [D])])

    for i in range(layers):
        p = f"encoder.layers.{i}"
        attention(p + ".self_attn")
        norm(p + ".norm1")
        norm(p + ".norm2")
        ffn(p + ".ffn")
    for i in range(layers):
        p = f"decoder.layers.{i}"
        attention(p + ".self_attn")
        attention(p + ".cross_attn")
        norm(p + ".norm1")
        norm(p + ".norm2")
        norm(p + ".norm3")
        ffn(p + ".ffn")
    if pre_ln:
        norm("encoder.norm")
        norm("decoder.norm")
    t.extend([("generator.weight", [V, D]), ("generator.bias", [V])])
    return t
