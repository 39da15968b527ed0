package linkbench

import "math/rand/v2"

// motif is the original's MotifDataGenerator (MotifDataGenerator.java:50-171): payloads are
// 128-byte chunks, each random bytes in [start, end] with probability uniqueness, otherwise a
// copy of a slice of a 512-byte motif buffer drawn once per generator. It sets how well the
// payloads compress, which matters to the storage engines compared.
type motif struct {
	start, span int
	uniqueness  float64
	motifs      []byte
}

const (
	motifChunk  = 128
	motifBuffer = 512
)

// The shipped workload's generators (FBWorkload.properties link_*_datagen_*, node_*_datagen_*).
func linkMotif() *motif { return &motif{start: 32, span: 100 - 32 + 1, uniqueness: 0.225} }
func nodeMotif() *motif { return &motif{start: 50, span: 220 - 50 + 1, uniqueness: 0.63} }

// fill returns n bytes of payload, appended to buf[:0].
func (m *motif) fill(rng *rand.Rand, buf []byte, n int) []byte {
	if m.motifs == nil {
		m.motifs = make([]byte, motifBuffer)
		for i := range m.motifs {
			m.motifs[i] = byte(m.start + rng.IntN(m.span))
		}
	}
	if buf == nil {
		buf = make([]byte, 0, n) // empty, not nil: data columns are NOT NULL
	}
	buf = buf[:0]
	for i := 0; i < n; i += motifChunk {
		end := min(n, i+motifChunk)
		if rng.Float64() < m.uniqueness {
			for j := i; j < end; j++ {
				buf = append(buf, byte(m.start+rng.IntN(m.span)))
			}
		} else {
			k := rng.IntN(motifBuffer - (end - i) + 1)
			buf = append(buf, m.motifs[k:k+end-i]...)
		}
	}
	return buf
}
