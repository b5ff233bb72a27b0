#!/usr/bin/python3
"""Reference TF-IDF values for stats/text (TestTFIDFReference).

scikit-learn's TfidfVectorizer(ngram_range=(1, 2), min_df=2, max_df=0.95,
smooth_idf=True, sublinear_tf=False) with Vatic's tokeniser plugged in: the
tokens of each document (stop words already removed) come from
tfidf_tokens.json, written by the Go test, and scikit-learn forms the bigrams,
counts, prunes, weights and normalises.

Two corpora: "boundary", 20 documents written by boundaryCorpus in
reference_test.go with terms at the document-frequency bounds, and
"fortunes", tfidf_corpus.txt: 320 quotations, the first 80 of at most 400
bytes of each of the science, literature, wisdom and people files of Debian's
fortunes package (BSD fortune-mod; whitespace collapsed, one per line), with a
few lines written for the edge cases (empty documents, a repeated one, apostrophes,
digits, non-ASCII letters, stop words only, bytes that are not UTF-8).

Produced with scikit-learn 1.2.1 and NumPy 1.24.2:

    go test ./stats/text -run TestTFIDFReference -update
    /usr/bin/python3 stats/text/testdata/tfidf_reference.py

The output, tfidf_reference.json, lists for each corpus the document count,
each column's term with its document frequency and idf, and each row's
non-zeros by term (columns are alphabetical in scikit-learn, by rank in
Vatic).
"""
import json
import os

from sklearn.feature_extraction.text import TfidfVectorizer

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "tfidf_tokens.json"), encoding="utf-8") as f:
    corpora = json.load(f)


def reference(tokens):
    vec = TfidfVectorizer(
        ngram_range=(1, 2),
        min_df=2,
        max_df=0.95,
        smooth_idf=True,
        sublinear_tf=False,
        lowercase=False,
        token_pattern=None,
        preprocessor=lambda doc: doc,
        tokenizer=lambda doc: tokens[int(doc)],
    )
    x = vec.fit_transform([str(i) for i in range(len(tokens))]).tocsr()
    names = vec.get_feature_names_out()
    df = (x > 0).sum(axis=0).A1
    rows = []
    for i in range(x.shape[0]):
        lo, hi = x.indptr[i], x.indptr[i + 1]
        rows.append({names[j]: float(v) for j, v in zip(x.indices[lo:hi], x.data[lo:hi])})
    return {
        "docs": len(tokens),
        "terms": {t: {"df": int(df[j]), "idf": float(vec.idf_[j])} for j, t in enumerate(names)},
        "rows": rows,
    }


out = {name: reference(toks) for name, toks in corpora.items()}
with open(os.path.join(here, "tfidf_reference.json"), "w", encoding="utf-8") as f:
    json.dump(out, f, ensure_ascii=False, indent=0, sort_keys=True)
    f.write("\n")
