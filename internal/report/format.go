package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Mark flags a cell of a Table for the formatters: a ratio better or worse than the base's by
// the figure's own direction (a higher rate is better, a higher latency or cost worse), or a
// figure that is not comparable.
type Mark int

const (
	// MarkNone is an ordinary cell.
	MarkNone Mark = iota
	// MarkWorse is a ratio outside [LowRatio, HighRatio] on the worse side of the base.
	MarkWorse
	// MarkBetter is a ratio outside [LowRatio, HighRatio] on the better side of the base.
	MarkBetter
	// MarkNotComparable is a figure of a q step whose run did not sustain 95% of the target
	// insert rate: its query figures measure a lighter load than the other runs'.
	MarkNotComparable
)

// LowRatio and HighRatio bound the ratios that count as "the same as the base" (±5%).
const (
	LowRatio  = 0.95
	HighRatio = 1.05
)

// NotComparable is the text of a ratio cell marked MarkNotComparable.
const NotComparable = "n/c"

// Table is a report as plain cells: the formatters (WriteTable, the HTML report) only decorate
// and lay them out. Marks, when not nil, parallels Rows cell for cell; a short or nil row of
// Marks means MarkNone.
type Table struct {
	Header []string
	Rows   [][]string
	Marks  [][]Mark
	// Title, if set, precedes the text format's table, and Note follows it: what it left out
	// (FittedSummaryTable).
	Title, Note string
	// Titles are the report's tooltips of cells (row, column), if any; text formats ignore them.
	Titles map[[2]int]string
}

// CellTitle returns a cell's tooltip, "" when it has none.
func (t Table) CellTitle(row, col int) string { return t.Titles[[2]int{row, col}] }

func (t *Table) setTitle(row, col int, title string) {
	if t.Titles == nil {
		t.Titles = map[[2]int]string{}
	}
	t.Titles[[2]int{row, col}] = title
}

// Mark returns the mark of a cell, MarkNone when there is none.
func (t Table) Mark(row, col int) Mark {
	if row < len(t.Marks) && col < len(t.Marks[row]) {
		return t.Marks[row][col]
	}
	return MarkNone
}

// Format is a text layout of a Table.
type Format string

// The formats of WriteTable.
const (
	FormatText     Format = "text"     // aligned columns, marks as a "-"/"+" suffix
	FormatTSV      Format = "tsv"      // tab-separated with a header line, cells undecorated
	FormatMarkdown Format = "markdown" // a pipe table, marked ratios in bold with the suffix
	// FormatJSON is an array of objects keyed by the header, cells as strings; summary and
	// compare have their own typed shapes (WriteSummaryJSON, WriteCompareJSON).
	FormatJSON Format = "json"
)

// Formats lists the formats in the order of the help text.
var Formats = []Format{FormatText, FormatTSV, FormatMarkdown, FormatJSON}

// ParseFormat checks a --format value.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown format %q: the formats are %s", s, strings.Join(names, ", "))
}

// decorate renders a cell for text and markdown: "+" after a better ratio, "-" after a worse
// one, " (n/c)" after a value marked not comparable (a base's own gated figures).
func decorate(cell string, m Mark) string {
	switch m {
	case MarkWorse:
		return cell + "-"
	case MarkBetter:
		return cell + "+"
	case MarkNotComparable:
		if cell != NotComparable && cell != "-" {
			return cell + " (" + NotComparable + ")"
		}
	}
	return cell
}

// WriteTable writes t in the given format.
func WriteTable(w io.Writer, t Table, format Format) error {
	switch format {
	case FormatText, "":
		var b bytes.Buffer
		if t.Title != "" {
			fmt.Fprintln(w, t.Title)
		}
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(t.Header, "\t"))
		for i, row := range t.Rows {
			cells := make([]string, len(row))
			for j, c := range row {
				cells[j] = decorate(c, t.Mark(i, j))
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for line := range strings.Lines(b.String()) { // no padding after an empty last cell
			if _, err := io.WriteString(w, strings.TrimRight(line, " \n")+"\n"); err != nil {
				return err
			}
		}
		if t.Note != "" {
			_, err := fmt.Fprintln(w, t.Note)
			return err
		}
		return nil
	case FormatTSV:
		clean := func(c string) string { return strings.NewReplacer("\t", " ", "\n", " ").Replace(c) }
		line := func(cells []string) error {
			out := make([]string, len(cells))
			for j, c := range cells {
				out[j] = clean(c)
			}
			_, err := fmt.Fprintln(w, strings.Join(out, "\t"))
			return err
		}
		if err := line(t.Header); err != nil {
			return err
		}
		for _, row := range t.Rows {
			if err := line(row); err != nil {
				return err
			}
		}
		return nil
	case FormatMarkdown:
		esc := strings.NewReplacer("|", `\|`, "\n", " ")
		line := func(cells []string) error {
			_, err := fmt.Fprintln(w, "| "+strings.Join(cells, " | ")+" |")
			return err
		}
		head := make([]string, len(t.Header))
		sep := make([]string, len(t.Header))
		for j, h := range t.Header {
			head[j] = esc.Replace(h)
			sep[j] = "---"
		}
		if err := line(head); err != nil {
			return err
		}
		if err := line(sep); err != nil {
			return err
		}
		for i, row := range t.Rows {
			cells := make([]string, len(row))
			for j, c := range row {
				m := t.Mark(i, j)
				c = esc.Replace(decorate(c, m))
				if m == MarkWorse || m == MarkBetter {
					c = "**" + c + "**"
				}
				cells[j] = c
			}
			if err := line(cells); err != nil {
				return err
			}
		}
		return nil
	case FormatJSON:
		objs := make([]map[string]string, len(t.Rows))
		for i, row := range t.Rows {
			objs[i] = map[string]string{}
			for j, h := range t.Header {
				if j < len(row) {
					objs[i][h] = row[j]
				}
			}
		}
		return writeJSON(w, objs)
	}
	_, err := ParseFormat(string(format))
	return err
}

// writeJSON writes v indented, with a final newline.
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
