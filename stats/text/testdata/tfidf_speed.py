#!/usr/bin/python3
"""Times scikit-learn's TfidfVectorizer on the corpus of BenchmarkFit100k.

    go test ./stats/text -run TestWriteSpeedCorpus -speed-corpus /tmp/corpus.txt
    /usr/bin/python3 stats/text/testdata/tfidf_speed.py /tmp/corpus.txt

Prints the best of three fit_transform times, with scikit-learn's own
tokeniser, (a) as the issue states it, TfidfVectorizer(ngram_range=(1, 2),
min_df=2, max_df=0.95), and (b) with Vatic's stop list (CORPUS.stop) as
stop_words, which is the work Fit does; then the peak RSS of the process.
"""
import resource
import sys
import time

from sklearn.feature_extraction.text import TfidfVectorizer

path = sys.argv[1]
with open(path, encoding="utf-8") as f:
    docs = f.read().split("\n")[:-1]
with open(path + ".stop", encoding="utf-8") as f:
    stop = f.read().split()

for name, kw in [("default", {}), ("vatic stop list", {"stop_words": stop})]:
    best = None
    for _ in range(3):
        vec = TfidfVectorizer(ngram_range=(1, 2), min_df=2, max_df=0.95, **kw)
        t0 = time.perf_counter()
        x = vec.fit_transform(docs)
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    print(f"{name}: {len(docs)} docs, {x.shape[1]} words, {x.nnz} non-zeros, best of 3: {best:.3f} s")
print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
