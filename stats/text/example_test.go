package text_test

import (
	"fmt"

	"github.com/vaticml/vatic/stats/text"
)

func ExampleTokenize() {
	fmt.Println(text.Tokenize(nil, "I don't know: the best at cleaning, 79.01 % of the time!"))
	// Output: [don know best cleaning 79 01 time]
}

func ExampleFit() {
	docs := []string{
		"The flight was cancelled.",
		"Flight cancelled again, thanks!",
		"Thanks for the great flight.",
		"",
	}
	voc, m := text.Fit(docs)
	for _, t := range voc.Terms {
		fmt.Printf("%-18q stop=%-5v rank=%2d count=%d df=%d\n", t.Text, t.Stop, t.Rank, t.Count, t.DF)
	}
	fmt.Printf("%d×%d matrix, row 0: flight %.4f, cancelled %.4f\n", m.Rows, m.Cols, m.At(0, 0), m.At(0, 1))

	// New documents are encoded with the stored words and idf; unseen
	// terms ("again", the bigram "cancelled flight") are ignored.
	enc := text.NewEncoder(voc.Words(), voc.IDF).Transform([]string{"Cancelled flight, again."})
	fmt.Printf("flight %.4f, cancelled %.4f, non-zeros %d\n", enc.At(0, 0), enc.At(0, 1), enc.NNZ())
	// Output:
	// "flight"           stop=false rank= 0 count=3 df=3
	// "cancelled"        stop=false rank= 1 count=2 df=2
	// "flight cancelled" stop=false rank= 2 count=2 df=2
	// "thanks"           stop=false rank= 3 count=2 df=2
	// "again"            stop=true  rank=-1 count=1 df=1
	// "cancelled thanks" stop=true  rank=-1 count=1 df=1
	// "for"              stop=true  rank=-1 count=1 df=1
	// "great"            stop=true  rank=-1 count=1 df=1
	// "great flight"     stop=true  rank=-1 count=1 df=1
	// "thanks great"     stop=true  rank=-1 count=1 df=1
	// "the"              stop=true  rank=-1 count=2 df=2
	// "was"              stop=true  rank=-1 count=1 df=1
	// 4×4 matrix, row 0: flight 0.4968, cancelled 0.6137
	// flight 0.6292, cancelled 0.7772, non-zeros 2
}
