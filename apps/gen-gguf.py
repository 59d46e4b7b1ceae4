#!/usr/bin/env python3
"""Write a llama-architecture GGUF of random weights (make bench-apps).

    gen-gguf.py OUT.gguf MIB [SEED]

No model can be downloaded here, and for the page cache only the reads
matter: this writes a model llama.cpp loads and runs, with Debian's
python3-gguf, about MIB MiB large. F32 weights (the least arithmetic per
byte read, which is what a TCG guest can afford), a byte-fallback
SentencePiece vocabulary of 512 tokens, n_embd 512, n_ff 1408, 8 heads,
and as many layers as the size asks. Tensors in the order convert_hf_to_gguf
writes a llama model: token_embd, blk.0 ... blk.N-1, output_norm, output.
"""
import sys

import numpy as np
import gguf

out, mib = sys.argv[1], int(sys.argv[2])
seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
rng = np.random.default_rng(seed)

n_vocab, n_embd, n_ff, n_head, n_head_kv, n_ctx = 512, 512, 1408, 8, 8, 512
layer_params = 4 * n_embd * n_embd + 3 * n_embd * n_ff + 2 * n_embd
fixed_params = 2 * n_vocab * n_embd + n_embd
n_layer = max(1, round((mib * 2**20 / 4 - fixed_params) / layer_params))

# the vocabulary: <unk> <s> </s>, the 256 byte tokens, then "▁" and
# printable characters alone and after "▁" (scores: shorter first)
tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
types = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL]
types += [gguf.TokenType.BYTE] * 256
chars = [chr(c) for c in range(33, 127)]
pieces = ["\u2581"] + chars + ["\u2581" + c for c in chars]
for p in pieces:
    if len(tokens) == n_vocab:
        break
    tokens.append(p)
    types.append(gguf.TokenType.NORMAL)
while len(tokens) < n_vocab:
    tokens.append(f"<extra_{len(tokens)}>")
    types.append(gguf.TokenType.UNUSED)
scores = [0.0] * 259 + [-float(i) for i in range(n_vocab - 259)]

w = gguf.GGUFWriter(out, "llama")
w.add_name("mmlab-random")
w.add_context_length(n_ctx)
w.add_embedding_length(n_embd)
w.add_block_count(n_layer)
w.add_feed_forward_length(n_ff)
w.add_head_count(n_head)
w.add_head_count_kv(n_head_kv)
w.add_rope_dimension_count(n_embd // n_head)
w.add_layer_norm_rms_eps(1e-5)
w.add_file_type(gguf.LlamaFileType.ALL_F32)
w.add_tokenizer_model("llama")
w.add_token_list(tokens)
w.add_token_scores(scores)
w.add_token_types(types)
w.add_bos_token_id(1)
w.add_eos_token_id(2)
w.add_unk_token_id(0)


def mat(rows, cols):
    return (rng.standard_normal((rows, cols), dtype=np.float32) * 0.02)


def ones(n):
    return np.ones(n, dtype=np.float32)


# numpy shape (rows, cols) is ggml's ne [cols, rows]
w.add_tensor("token_embd.weight", mat(n_vocab, n_embd))
for i in range(n_layer):
    b = f"blk.{i}."
    w.add_tensor(b + "attn_norm.weight", ones(n_embd))
    w.add_tensor(b + "attn_q.weight", mat(n_embd, n_embd))
    w.add_tensor(b + "attn_k.weight", mat(n_embd * n_head_kv // n_head, n_embd))
    w.add_tensor(b + "attn_v.weight", mat(n_embd * n_head_kv // n_head, n_embd))
    w.add_tensor(b + "attn_output.weight", mat(n_embd, n_embd))
    w.add_tensor(b + "ffn_norm.weight", ones(n_embd))
    w.add_tensor(b + "ffn_gate.weight", mat(n_ff, n_embd))
    w.add_tensor(b + "ffn_up.weight", mat(n_ff, n_embd))
    w.add_tensor(b + "ffn_down.weight", mat(n_embd, n_ff))
w.add_tensor("output_norm.weight", ones(n_embd))
w.add_tensor("output.weight", mat(n_vocab, n_embd))
w.write_header_to_file()
w.write_kv_data_to_file()
w.write_tensors_to_file()
w.close()
print(f"{out}: llama, {n_layer} layers, n_embd {n_embd}, n_ff {n_ff}, vocab {n_vocab}, F32")
