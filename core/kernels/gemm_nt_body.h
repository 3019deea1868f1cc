// sgemm_nt's dot-product tiles (gemm_kernels.h), out (N,OC) = inp (N,C) · weight (OC,C)ᵀ + bias,
// as register tiles that read both operands in their stored row-major layout (nothing packed or
// copied): the loops over chunks, column blocks, blocks of C and tiles, written once. Each unit
// (gemm_nt_avx2.cpp, gemm_nt_avx512.cpp) defines its tile in an anonymous namespace and includes
// this file inside it, so everything here has internal linkage and is compiled for that unit's set
// alone. Not a header for anyone else.
//
// The tile: LANES (floats a vector), NT_ROWS × NT_COLS (inp rows × weight rows), MAX_CHUNK_TILES,
// EQUAL_CHUNKS; nt_kernel<ACCUMULATE>(acc, x, w0, stride_bytes, vectors, prefetch), which sums the
// whole vectors of a block of C into the tile's NT_ROWS·NT_COLS accumulators (row r, column c at
// vector NT_COLS·r + c); and nt_finish_tile(out, acc, x, w0, bias, n0, rows, first_col, skip, C, OC),
// which adds C's last partial vector, sums each accumulator, adds the bias and stores.
//
// Cache use: inp rows in chunks that stay in L2 (256 KiB) while every block of COLS weight rows
// passes over them; C in blocks of K_BLOCK floats, so that a tile's ROWS + COLS rows of a block stay
// in L1 while the tile's accumulators wait in memory between blocks. Tile t of a block of weight
// rows prefetches row t mod COLS of the next block into L2 (the last block: its own rows). Every
// output's sum runs over the blocks of C in order whatever the chunks, so the chunking changes no bits.

constexpr int NT_L2_CHUNK_FLOATS = 64 * 1024;   // 256 KiB of inp rows, streamed from L2 by the tiles
constexpr int NT_K_BLOCK = 512;                 // floats of C a kernel call sums over (a multiple of LANES)

// In this unit rather than std::min (gemm_kernels.h says why).
constexpr int nt_min(int a, int b) { return a < b ? a : b; }
constexpr int nt_max(int a, int b) { return a > b ? a : b; }

void sgemm_nt_tiles(float* out, const float* inp, const float* weight, const float* bias, int N, int C, int OC) {
    constexpr int ROWS = NT_ROWS, COLS = NT_COLS;
    int chunk_rows = nt_min(nt_max((NT_L2_CHUNK_FLOATS / C) / ROWS * ROWS, ROWS), MAX_CHUNK_TILES * ROWS);
    if constexpr (EQUAL_CHUNKS) {
        // Chunks of equal size: 32 rows of 2048 floats are one chunk of 33, not 30 + 2, which would
        // stream every weight from memory twice.
        const int chunks = (N + chunk_rows - 1) / chunk_rows;
        chunk_rows = ((N + chunks - 1) / chunks + ROWS - 1) / ROWS * ROWS;
    }
    const int col_blocks = (OC + COLS - 1) / COLS;
    const int vectors = C / LANES;   // whole vectors of C; the kernels do these, finish the rest
    for (int chunk = 0; chunk < N; chunk += chunk_rows) {
        const int chunk_end = nt_min(N, chunk + chunk_rows);
        const int tiles = (chunk_end - chunk + ROWS - 1) / ROWS;
        auto column_blocks = [&](int first, int last) {
            for (int cb = first; cb < last; ++cb) {
                const int oc0 = cb * COLS;
                const int first_col = nt_min(oc0, OC - COLS);   // the COLS weight rows computed
                const float* w0 = weight + static_cast<int64_t>(first_col) * C;
                const int next_block = oc0 + COLS < OC ? oc0 + COLS : first_col;
                alignas(LANES * 4) float acc[MAX_CHUNK_TILES][ROWS * COLS * LANES];   // per tile: row r, column c at vector COLS·r + c
                auto tile_rows = [&](int t, const float* x[ROWS]) {   // returns the rows the tile stores
                    const int n0 = chunk + t * ROWS, rows = nt_min(ROWS, chunk_end - n0);
                    for (int r = 0; r < ROWS; ++r) x[r] = inp + static_cast<int64_t>(n0 + nt_min(r, rows - 1)) * C;
                    return rows;
                };
                for (int k0 = 0; k0 == 0 || k0 < vectors * LANES; k0 += NT_K_BLOCK) {   // at least once: zeroes acc
                    const int64_t block_vectors = nt_min(NT_K_BLOCK, vectors * LANES - k0) / LANES;
                    for (int t = 0; t < tiles; ++t) {
                        const float* x[ROWS];
                        tile_rows(t, x);
                        for (const float*& row : x) row += k0;
                        const float* prefetch = weight + static_cast<int64_t>(nt_min(next_block + t % COLS, OC - 1)) * C + k0;
                        if (k0 == 0)
                            nt_kernel<false>(acc[t], x, w0 + k0, static_cast<int64_t>(C) * 4, block_vectors, prefetch);
                        else
                            nt_kernel<true>(acc[t], x, w0 + k0, static_cast<int64_t>(C) * 4, block_vectors, prefetch);
                    }
                }
                for (int t = 0; t < tiles; ++t) {
                    const float* x[ROWS];
                    const int rows = tile_rows(t, x);
                    nt_finish_tile(out, acc[t], x, w0, bias, chunk + t * ROWS, rows, first_col, oc0 - first_col, C, OC);
                }
            }
        };
        split_blocks(col_blocks, [](void* f, int first, int last) { (*static_cast<decltype(column_blocks)*>(f))(first, last); },
                     &column_blocks);
    }
}
