package driver

// Redaction: no secret of a target string reaches the output, run.json or an error message.
//
// A target string carries a secret in any of the forms the drivers accept:
//
//   - the URL's userinfo password, postgres://u:SECRET@h/db and mysql://u:SECRET@h/db;
//   - the URL query parameters password and sslpassword (pgx's ParseConfig: the passphrase of
//     an encrypted sslkey), repeated or not, their keys percent-encoded or not (pass%77ord, as
//     pgx decodes them) and in any case (pgx matches the lower-case spelling only and sends any
//     other to the server as a setting, but the value is still the user's password);
//   - libpq's keyword/value form, which pgx accepts (password=SECRET, password = 'S E C'), and
//     go-sql-driver's DSN (u:SECRET@tcp(h:3306)/db); dbperf takes neither as a target, but
//     echoes a rejected target string in its error.
//
// The other parameters pgx reads are no secret: sslkey, sslcert, sslrootcert, passfile and
// servicefile are paths to files (the key's contents stay in its file), service names an entry
// of the service file, and the rest are settings.
//
// Two parsers read the same URL differently: pgx follows libpq (the userinfo ends at the first
// '@' before any '/'; there is no fragment, so '#' is data and a password may hold it), and
// net/url, which dbperf's Parse and the MySQL driver use (the userinfo ends at the last '@'
// before the first '/', '?' or '#', and '#' starts a fragment). Each redaction removes the
// union of what either parser reads as a secret, so that `@`, `?` or `#` inside a password
// never leave part of it behind. A URL neither parser can read unambiguously (a non-numeric
// port, an unencoded '/' in a password) also loses every ":...@" run after the userinfo, as
// pgx's own redaction does.
//
// A secret is replaced with nothing, and its value only: postgres://u:pw@h/db?password=x
// reads postgres://u@h/db?password=, so that the parameter is seen to have been given and the
// redacted string is still a target that runs with the password from PGPASSWORD or MYSQL_PWD.
// In the prose of an error message, where the bare password can appear without any URL around
// it, Scrub writes ******** in its place instead.

import (
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// scrubMask replaces a password that appears in an error message's prose (Scrub).
const scrubMask = "********"

// secretKey reports whether a URL query parameter's raw key names a secret.
func secretKey(raw string) bool {
	k := strings.ToLower(strings.Trim(decodeLenient(strings.Trim(raw, " ")), " "))
	return k == "password" || k == "sslpassword"
}

// RedactDSN removes the secrets of every URL and keyword/value connection string in s, a
// message or other text: a URL ends at white space (or at the quote that opened it).
func RedactDSN(s string) string { return redact(s, false) }

// RedactTarget removes the secrets of s, one target string or one command-line argument: its URL
// runs to the end of s, white space included.
func RedactTarget(s string) string { return redact(s, true) }

func redact(s string, whole bool) string {
	var b strings.Builder
	for s != "" {
		i, _ := urlStart(s, 0)
		if i < 0 {
			b.WriteString(redactText(s, whole))
			break
		}
		b.WriteString(redactText(s[:i], whole))
		end := len(s)
		if !whole {
			end = textURLEnd(s, i)
		}
		b.WriteString(redactURL(s[i:end]))
		s = s[end:]
	}
	return b.String()
}

// urlStart returns where the first URL at or after from starts (its scheme) and where its "://"
// is, or -1.
func urlStart(s string, from int) (start, sep int) {
	for from < len(s) {
		j := strings.Index(s[from:], "://")
		if j < 0 {
			return -1, -1
		}
		j += from
		k := j
		for k > 0 && isSchemeByte(s[k-1]) {
			k--
		}
		for k < j && !isLetter(s[k]) { // a scheme starts with a letter
			k++
		}
		if k < j {
			return k, j
		}
		from = j + 3
	}
	return -1, -1
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isSchemeByte(c byte) bool {
	return isLetter(c) || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
}

// textURLEnd is where the URL starting at i in a message ends: at white space, or, if a quote
// opened it, at the quote that closes it (one followed by white space, punctuation or the end).
func textURLEnd(s string, i int) int {
	end := len(s)
	if k := strings.IndexAny(s[i:], " \t\r\n\v\f"); k >= 0 {
		end = i + k
	}
	if i == 0 || !strings.ContainsRune("\"'`", rune(s[i-1])) {
		return end
	}
	q := s[i-1]
	line := len(s)
	if k := strings.IndexByte(s[i:], '\n'); k >= 0 {
		line = i + k
	}
	for k := i; k < line; k++ {
		if s[k] == q && (k+1 == len(s) || strings.IndexByte(" \t\r\n:;,.)]}", s[k+1]) >= 0) {
			return k
		}
	}
	return end
}

// span is a range of bytes to remove; a userinfo password's starts at its ':'.
type span struct {
	from, to int
	colon    bool
}

// redactURL removes the secrets of t, which starts with a URL's scheme.
func redactURL(t string) string {
	spans, _ := urlSecrets(t)
	return cut(t, spans)
}

// urlSecrets returns the secrets' spans in t, which starts with a URL's scheme, as either parser
// reads it, and the offsets at which one of the parsers splits t (an end of the userinfo or
// of the authority, the fragment): a secret that holds one reaches messages in pieces. A URL
// inside t (in a parameter's value) is read as well.
func urlSecrets(t string) (spans []span, cuts []int) {
	for from := 0; ; {
		start, sep := urlStart(t, from)
		if start < 0 {
			break
		}
		sp, cs := oneURLSecrets(t[start:], sep-start+3)
		for _, s := range sp {
			spans = append(spans, span{s.from + start, s.to + start, s.colon})
		}
		for _, c := range cs {
			cuts = append(cuts, c+start)
		}
		from = sep + 3
	}
	return spans, cuts
}

// ambiguousPair is pgx's heuristic for a password stranded outside the userinfo of a URL that
// does not parse: a ':' and what follows up to an '@'.
var ambiguousPair = regexp.MustCompile(`:[^@]+@`)

// oneURLSecrets reads t, whose authority starts at idx.
func oneURLSecrets(t string, idx int) (spans []span, cuts []int) {
	userEnd := -1 // the last byte of the userinfo either parser reads ('@'), or -1
	userinfo := func(at int) {
		cuts = append(cuts, at)
		if c := strings.IndexByte(t[idx:at], ':'); c >= 0 {
			spans = append(spans, span{idx + c, at, true}) // the ':' goes with the password
		}
		userEnd = max(userEnd, at)
	}
	// pgx (libpq): the userinfo ends at the first '@', if no '/' comes before it.
	if i := strings.IndexAny(t[idx:], "@/"); i >= 0 && t[idx+i] == '@' {
		userinfo(idx + i)
	}
	// net/url: the authority ends at the first '/', '?' or '#'; the userinfo at its last '@'.
	authEnd := len(t)
	if i := strings.IndexAny(t[idx:], "/?#"); i >= 0 {
		authEnd = idx + i
	}
	cuts = append(cuts, authEnd)
	if i := strings.LastIndexByte(t[idx:authEnd], '@'); i >= 0 {
		userinfo(idx + i)
	}
	if i := strings.IndexByte(t, '#'); i >= 0 {
		cuts = append(cuts, i)
	}

	// Parameters: a key starts after any '?' or '#', and after an '&' once one of those came
	// (pgx reads the query from the first '?' after its userinfo and '#' as data; net/url from
	// the first '?' and ends it at '#'). A secret's value runs to the next '&'.
	params := false
	for k := idx; k < len(t); k++ {
		switch c := t[k]; {
		case c == '?' || c == '#':
			params = true
		case c == '&' && params:
		default:
			continue
		}
		pair := t[k+1:]
		if e := strings.IndexByte(pair, '&'); e >= 0 {
			pair = pair[:e]
		}
		key, _, ok := strings.Cut(pair, "=")
		if ok && secretKey(key) {
			spans = append(spans, span{k + 1 + len(key) + 1, k + 1 + len(pair), false})
		}
	}

	if ambiguous(t, idx, userEnd, authEnd) {
		from := max(userEnd+1, idx)
		for _, m := range ambiguousPair.FindAllStringIndex(t[from:], -1) {
			spans = append(spans, span{from + m[0], from + m[1] - 1, true})
		}
	}
	return spans, cuts
}

// ambiguous reports whether a parser could read t's parts in other places than oneURLSecrets
// does: t does not parse as a URL, or a port is not a number (where a password can land).
func ambiguous(t string, idx, userEnd, authEnd int) bool {
	if _, err := url.Parse(t); err != nil {
		return true
	}
	hosts := t[max(idx, userEnd+1):max(authEnd, userEnd+1)]
	for _, h := range strings.Split(hosts, ",") {
		if strings.HasPrefix(h, "[") {
			if e := strings.IndexByte(h, ']'); e >= 0 {
				h = h[e+1:]
			}
		}
		if c := strings.LastIndexByte(h, ':'); c >= 0 && strings.Trim(h[c+1:], "0123456789") != "" {
			return true
		}
	}
	return false
}

// keywordValue is a password in libpq's keyword/value form: the value is quoted ('...', with
// backslash escapes) or runs to white space (a backslash escapes one byte).
var keywordValue = regexp.MustCompile(`(?i)(^|[^a-z0-9_.%-])((?:ssl)?password)(\s*=\s*)('(?:[^'\\]|\\.)*'?|(?:[^\s\\]|\\.|\\$)*)`)

// mysqlDSN is go-sql-driver's user:password@net(address)/db or user:password@/db.
var mysqlDSN = regexp.MustCompile(`^([^:@/\s]*):.*@((?:[a-z0-9]*\([^)]*\))?/)`)

// redactText removes keyword/value passwords from text that holds no URL; a whole target
// string also loses a go-sql-driver DSN's password.
func redactText(s string, whole bool) string {
	if whole {
		s = mysqlDSN.ReplaceAllString(s, "$1@$2")
	}
	return keywordValue.ReplaceAllString(s, "$1$2$3")
}

// cut returns t without the bytes of spans.
func cut(t string, spans []span) string {
	if len(spans) == 0 {
		return t
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
	var b strings.Builder
	at := 0
	for _, s := range spans {
		if s.to <= at {
			continue
		}
		b.WriteString(t[at:max(at, s.from)])
		at = s.to
	}
	b.WriteString(t[at:])
	return b.String()
}

// minPiece is the shortest piece of a secret that Scrub replaces: a shorter one (a port, a
// letter) would garble the message more than it hides.
const minPiece = 4

// secrets lists the secrets of a target URL as they can appear in a message: each one raw and
// percent-decoded, and the pieces (of minPiece bytes or more) that one parser makes of a
// secret the other reads whole, as pgx's host of postgres://u:pass@word@h/db; longest first.
func secrets(dsn string) []string {
	spans, cuts := urlSecrets(dsn)
	seen := map[string]bool{}
	var out []string
	add := func(v string, min int) {
		for _, s := range []string{v, decodeLenient(v), strings.ReplaceAll(decodeLenient(v), "+", " ")} {
			if len(s) >= min && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	for _, sp := range spans {
		from := sp.from
		if sp.colon {
			from++
		}
		add(dsn[from:sp.to], 1)
		piece := from
		for _, c := range sortedInts(cuts) {
			if c > from && c < sp.to {
				add(dsn[piece:c], minPiece)
				piece = c + 1
			}
		}
		if piece > from && piece < sp.to {
			add(dsn[piece:sp.to], minPiece)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

func sortedInts(v []int) []int {
	v = append([]int(nil), v...)
	sort.Ints(v)
	return v
}

// decodeLenient percent-decodes what it can, leaving any other '%' as it is (as pgx does to
// recognize a key in a string it cannot parse).
func decodeLenient(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			hi, ok1 := unhex(s[i+1])
			lo, ok2 := unhex(s[i+2])
			if ok1 && ok2 {
				b.WriteByte(hi<<4 | lo)
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c|0x20 >= 'a' && c|0x20 <= 'f':
		return c | 0x20 - 'a' + 10, true
	}
	return 0, false
}

// Scrub returns err with the spec's secrets removed from its message, wherever a driver put
// them: in a URL (removed, as RedactDSN does) or bare in the prose (replaced with ********).
func Scrub(s Spec, err error) error {
	if err == nil || s.DSN == "" {
		return err
	}
	msg := RedactDSN(err.Error())
	for _, secret := range secrets(s.DSN) {
		msg = strings.ReplaceAll(msg, secret, scrubMask)
	}
	if msg == err.Error() {
		return err
	}
	return scrubbed{msg: msg, err: err}
}

type scrubbed struct {
	msg string
	err error
}

func (s scrubbed) Error() string { return s.msg }
func (s scrubbed) Unwrap() error { return s.err }
