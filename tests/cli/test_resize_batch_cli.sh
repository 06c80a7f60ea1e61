#!/usr/bin/env bash
# `tessera resize IN... FOLDER` over many inputs: the pipeline (inputs decoded and outputs encoded
# on --threads workers) writes the same bytes as single-image runs at every thread count, reports
# each bad input in one line while writing the others (exit 1), keeps --json items in input
# order, and on SIGTERM exits 130 leaving only complete outputs.
tests=${TSR_TESTS:?TSR_TESTS must name the tests folder}
. "$tests/cli/lib.sh"
sample=$tests/data/sample.png

# Inputs that differ: JPEG and PNG, 8 of them, made from the sample at sizes up to 640x480.
mkdir "$tmp/in"
i=0
for size in 640x480 480x360 600x400 320x240; do
  for interp in cubic lanczos4; do
    i=$((i + 1))
    ext=$([ $((i % 2)) -eq 0 ] && echo png || echo jpg)
    "$tool" resize "$sample" "$tmp/in/img$i.$ext" --size "$size" --interp "$interp" --quiet ||
      { echo "cannot make the inputs" >&2; exit 1; }
  done
done
head -c 700 "$tmp/in/img1.jpg" >"$tmp/in/img3_cut.jpg" # a truncated JPEG
echo "not an image" >"$tmp/in/img6_text.png"
inputs=("$tmp/in/img1.jpg" "$tmp/in/img2.png" "$tmp/in/img3_cut.jpg" "$tmp/in/img3.jpg"
  "$tmp/in/img4.png" "$tmp/in/img5.jpg" "$tmp/in/img6_text.png" "$tmp/in/img6.png"
  "$tmp/in/img7.jpg" "$tmp/in/img8.png")
good=(img1.jpg img2.png img3.jpg img4.png img5.jpg img6.png img7.jpg img8.png)

for interp in area linear; do
  # the reference: each input alone
  rm -rf "$tmp/single"; mkdir "$tmp/single"
  for f in "${good[@]}"; do
    "$tool" resize "$tmp/in/$f" "$tmp/single/$f" --size 150x --interp "$interp" --quiet ||
      bad "single run of $f ($interp)"
  done
  for threads in 1 2 3; do
    rm -rf "$tmp/out"
    expect 1 "$tool" resize "${inputs[@]}" "$tmp/out" --size 150x --interp "$interp" \
      --threads "$threads" --json
    what="--threads $threads --interp $interp"
    [ "$(grep -c 'img3_cut.jpg' "$tmp/err.txt")" -eq 1 ] && ok || bad "truncated input reported once ($what)"
    [ "$(grep -c 'img6_text.png' "$tmp/err.txt")" -eq 1 ] && ok || bad "text input reported once ($what)"
    grep -q "2 of 10 images failed (the others are written)" "$tmp/err.txt" && ok ||
      bad "summary line ($what): $(cat "$tmp/err.txt")"
    [ "$(wc -l <"$tmp/err.txt")" -eq 3 ] && ok || bad "one line per failure and the summary ($what)"
    [ "$(ls -A "$tmp/out" | wc -l)" -eq 8 ] && ok || bad "8 outputs, nothing else ($what): $(ls -A "$tmp/out")"
    for f in "${good[@]}"; do
      cmp -s "$tmp/out/$f" "$tmp/single/$f" && ok || bad "batch $f differs from its single run ($what)"
    done
    python3 - "$tmp/out.txt" "${good[@]}" <<'PY' && ok || bad "--json: items in input order, failed 2 ($what)"
import json, os, sys
rep = json.load(open(sys.argv[1]))
names = [os.path.basename(i["input"]) for i in rep["images"]]
sys.exit(0 if names == sys.argv[2:] and rep["failed"] == 2 and rep["ok"] is False else 1)
PY
  done
done

# Every input good: exit 0, silent with --quiet.
expect 0 "$tool" resize "$tmp/in/img1.jpg" "$tmp/in/img2.png" "$tmp/in/img4.png" "$tmp/allgood" \
  --size 64x --threads 2 --quiet
[ ! -s "$tmp/err.txt" ] && ok || bad "--quiet batch printed: $(cat "$tmp/err.txt")"
[ "$(ls "$tmp/allgood" | wc -l)" -eq 3 ] && ok || bad "all-good batch wrote 3 outputs"

# SIGTERM during a long batch: exit 130, and what is in the folder is complete (equal to the
# single run's bytes) under the inputs' names.
mkdir "$tmp/many"
"$tool" resize "$sample" "$tmp/big.jpg" --size 2400x1800 --interp cubic --quiet
"$tool" resize "$tmp/big.jpg" "$tmp/big_thumb.jpg" --size 100x --interp area --quiet
for k in $(seq 1 400); do ln -s "$tmp/big.jpg" "$tmp/many/p$k.jpg"; done
rm -rf "$tmp/stop"; mkdir "$tmp/stop"
"$tool" resize "$tmp/many"/p*.jpg "$tmp/stop" --size 100x --interp area --threads 2 \
  >"$tmp/out.txt" 2>"$tmp/err.txt" &
pid=$!
sleep 1
kill -TERM $pid
wait $pid
got=$?
[ "$got" -eq 130 ] && ok || bad "exit $got (want 130) after SIGTERM of a batch"
grep -q "interrupted" "$tmp/err.txt" && ok || bad "no 'interrupted' message: $(cat "$tmp/err.txt")"
for f in $(ls -A "$tmp/stop"); do
  case $f in p[0-9]*.jpg) ;; *) bad "SIGTERM left $f"; continue ;; esac
  cmp -s "$tmp/stop/$f" "$tmp/big_thumb.jpg" || bad "SIGTERM left an incomplete $f"
done
ok

finish test_resize_batch_cli
