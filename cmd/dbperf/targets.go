package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/spf13/cobra"
)

// textWidth is the widest line the commands' default text output prints.
const textWidth = 100

func targetsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "targets",
		Short: "List the target kinds and how to name them",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return printTargets(c.OutOrStdout())
		},
	}
}

// printTargets lists each target kind with its target string, and what it is below them,
// indented and wrapped to textWidth.
func printTargets(w io.Writer) error {
	kinds := driver.Kinds()
	pad := 0
	for _, k := range kinds {
		pad = max(pad, len(k.Name))
	}
	indent := strings.Repeat(" ", pad+2)
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s  %s\n", pad, "KIND", "TARGET STRING")
	for _, k := range kinds {
		fmt.Fprintf(&b, "%-*s  %s\n", pad, k.Name, k.Usage)
		b.WriteString(wrapText(k.Summary, indent, textWidth))
	}
	b.WriteString("\n" + wrapText(fmt.Sprintf("A key-value kind prefixed with %s stalls every operation during chosen windows, to see "+
		"what closed and open loops do with a stall (docs/open-loop.md): %spebble[:DIR]?at=5s&for=2s[&every=10s]", driver.StallPrefix, driver.StallPrefix), "", textWidth))
	_, err := io.WriteString(w, b.String())
	return err
}

// wrapText breaks text into lines of at most width characters, each starting with indent, at
// spaces (a word longer than a line has one of its own).
func wrapText(text, indent string, width int) string {
	var b strings.Builder
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(indent)+len(line)+1+len(word) > width {
			b.WriteString(indent + line + "\n")
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		b.WriteString(indent + line + "\n")
	}
	return b.String()
}
