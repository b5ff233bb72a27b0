package text

import "slices"

// stopList is Vatic's English stop list (MODELLING §10): function words
// that carry little topic, grouped by part of speech. It was written for
// this project and ships under its licence. Single letters are absent
// (tokens have at least two characters), and so are the fragments that
// apostrophes leave behind ("don", "ve", "ll", "re", "didn"): the recorded
// vocabularies keep them as words.
var stopList = [...]string{
	// Articles, determiners and quantifiers.
	"an", "the", "this", "that", "these", "those", "each", "every", "either",
	"neither", "any", "some", "all", "both", "few", "fewer", "many", "much",
	"more", "most", "less", "least", "several", "such", "no", "none", "other",
	"others", "another", "own", "same", "enough", "certain", "whatsoever",

	// Personal, reflexive and possessive pronouns.
	"he", "him", "his", "himself", "she", "her", "hers", "herself", "it",
	"its", "itself", "we", "us", "our", "ours", "ourselves", "you", "your",
	"yours", "yourself", "yourselves", "they", "them", "their", "theirs",
	"themselves", "me", "my", "mine", "myself", "oneself", "thee", "thou",
	"thy", "ye",

	// Relative, interrogative and indefinite pronouns.
	"who", "whom", "whose", "which", "what", "whatever", "whoever",
	"whomever", "whichever", "anyone", "anybody", "anything", "someone",
	"somebody", "something", "everyone", "everybody", "everything", "nobody",
	"nothing", "noone",

	// Auxiliary and modal verbs.
	"am", "is", "are", "was", "were", "be", "been", "being", "have", "has",
	"had", "having", "do", "does", "did", "doing", "can", "could", "may",
	"might", "must", "shall", "should", "will", "would", "ought", "cannot",

	// Prepositions.
	"about", "above", "across", "after", "against", "along", "alongside",
	"amid", "amidst", "among", "amongst", "around", "as", "at", "atop",
	"before", "behind", "below", "beneath", "beside", "besides", "between",
	"beyond", "by", "despite", "down", "during", "except", "for", "from",
	"in", "inside", "into", "near", "of", "off", "on", "onto", "out",
	"outside", "over", "per", "through", "throughout", "till", "to",
	"toward", "towards", "under", "underneath", "unlike", "until", "unto",
	"up", "upon", "via", "with", "within", "without", "versus",

	// Conjunctions and connectives.
	"and", "but", "or", "nor", "so", "yet", "because", "although", "though",
	"whereas", "while", "whilst", "if", "unless", "whether", "than", "then",
	"once", "lest", "hence", "thus", "therefore", "however", "moreover",
	"furthermore", "nevertheless", "nonetheless", "otherwise", "meanwhile",
	"also", "else", "instead", "anyway", "accordingly", "consequently",
	"namely", "whereby", "wherein", "whereupon", "whereafter",

	// Adverbs of place, time, degree and manner that work as function words.
	"when", "whenever", "where", "wherever", "why", "how", "here", "there",
	"thereby", "therein", "thereafter", "thereupon", "hereby", "herein",
	"hereafter", "hereupon", "whence", "thence", "hither", "thither",
	"whither", "now", "ever", "never", "always", "often", "sometimes",
	"sometime", "already", "still", "just", "only", "even", "again",
	"almost", "quite", "rather", "very", "too", "perhaps", "indeed", "soon",
	"together", "not", "somewhere", "anywhere", "everywhere", "nowhere",
	"somehow", "anyhow", "afterwards", "beforehand", "formerly", "latterly",
	"meantime", "seldom", "mostly", "nearly", "merely", "fairly",
	"thereof", "hereof", "whereof", "ago", "away",
	"elsewhere", "further", "likewise", "alike", "somewhat",

	// Numbers and ordinals used as determiners.
	"one", "ones", "two", "three", "first", "second", "last", "next",
	"former", "latter", "single", "double", "half", "twice",

	// Verb forms that mostly serve grammar ("get" and "let" as auxiliaries,
	// "done" and "been" as participles).
	"done", "get", "gets", "got", "gotten", "getting", "let", "lets",
	"become", "becomes", "became", "becoming", "seem", "seems", "seemed",
	"seeming", "make", "makes", "made", "use", "used",

	// Abbreviations that behave like function words.
	"etc", "ie", "eg", "vs", "viz",
}

// stopWords indexes stopList.
var stopWords = func() map[string]struct{} {
	m := make(map[string]struct{}, len(stopList))
	for _, w := range stopList {
		m[w] = struct{}{}
	}
	return m
}()

// IsStopWord reports whether tok, a lower-case token, is on Vatic's English
// stop list of about 300 function words (articles, pronouns, auxiliaries,
// prepositions, conjunctions and the like). Contraction fragments such as
// "don" and "ve" are not on it. Upper-case input is never a stop word.
func IsStopWord(tok string) bool {
	_, ok := stopWords[tok]
	return ok
}

// isStop is IsStopWord on a token's bytes, without allocating.
func isStop(tok []byte) bool {
	_, ok := stopWords[string(tok)]
	return ok
}

// StopWords returns the stop list, sorted, for documentation and for
// scripts that compare against other tools.
func StopWords() []string {
	out := make([]string, 0, len(stopWords))
	for w := range stopWords {
		out = append(out, w)
	}
	slices.Sort(out)
	return out
}
