package monitor

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/dbperf/dbperf/internal/runner"
	"golang.org/x/sys/unix"
)

// clockTicks is USER_HZ, the unit of /proc's CPU times: 100 on every Linux architecture
// dbperf runs on (it is fixed by the kernel ABI, not by CONFIG_HZ).
const clockTicks = 100

// HostSample is one reading of the host's counters. Counters only grow; an interval's figures
// are the difference of two samples.
type HostSample struct {
	At time.Time
	// CPU time of the whole host in ticks, from /proc/stat's "cpu" line.
	User, Nice, System, Idle, IOWait, IRQ, SoftIRQ, Steal uint64
	Ctxt                                                  uint64 // context switches
	// Disk counters of the devices holding the database, from /proc/diskstats.
	Reads, SectorsRead, Writes, SectorsWritten uint64
	// DBMS processes: CPU ticks (user+system), and resident and virtual memory now (bytes).
	DBMSTicks      uint64
	DBMSRSS        uint64
	DBMSVSZ        uint64
	DBMSProcesses  int
	Client         runner.CPUTime // this process
	diskFound      bool
	dbmsProcsFound bool
}

// HostSampler reads /proc. It needs no external tool.
type HostSampler struct {
	devices []string // diskstats names of the devices holding the database
	pids    func() []int
	buf     []byte
}

// NewHostSampler samples the devices holding dataDir (none if empty or unknown) and the
// processes pids returns (called at each sample: PostgreSQL starts and ends backends).
func NewHostSampler(dataDir string, pids func() []int) *HostSampler {
	s := &HostSampler{pids: pids}
	if dataDir != "" {
		s.devices = devicesOf(dataDir)
	}
	return s
}

// Devices names the block devices whose IO is counted.
func (s *HostSampler) Devices() []string { return s.devices }

// Sample reads every counter now.
func (s *HostSampler) Sample() (HostSample, error) {
	h := HostSample{At: time.Now(), Client: runner.ProcessCPU()}
	var err error
	if s.buf, err = readFile("/proc/stat", s.buf); err != nil {
		return h, err
	}
	for _, line := range bytes.Split(s.buf, []byte("\n")) {
		f := bytes.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch string(f[0]) {
		case "cpu":
			v := parseUints(f[1:])
			for len(v) < 8 {
				v = append(v, 0)
			}
			h.User, h.Nice, h.System, h.Idle, h.IOWait, h.IRQ, h.SoftIRQ, h.Steal = v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
		case "ctxt":
			if len(f) > 1 {
				h.Ctxt, _ = strconv.ParseUint(string(f[1]), 10, 64)
			}
		}
	}
	if len(s.devices) > 0 {
		if s.buf, err = readFile("/proc/diskstats", s.buf); err != nil {
			return h, err
		}
		for _, line := range bytes.Split(s.buf, []byte("\n")) {
			f := bytes.Fields(line)
			if len(f) < 10 || !contains(s.devices, string(f[2])) {
				continue
			}
			v := parseUints(f[3:10])
			h.Reads += v[0]
			h.SectorsRead += v[2]
			h.Writes += v[4]
			h.SectorsWritten += v[6]
			h.diskFound = true
		}
	}
	if s.pids != nil {
		for i, pid := range s.pids() {
			ticks, rss, vsz, ok := s.process(pid, i == 0)
			if !ok {
				continue // ended since it was listed
			}
			h.DBMSTicks += ticks
			h.DBMSRSS += rss
			h.DBMSVSZ += vsz
			h.DBMSProcesses++
			h.dbmsProcsFound = true
		}
	}
	return h, nil
}

// process reads a process's CPU ticks, RSS and VSZ from /proc/PID/stat. For the main process
// (the first listed) it adds the CPU of its finished children, so that a PostgreSQL backend or
// autovacuum worker that ends keeps counting, and the total only grows.
func (s *HostSampler) process(pid int, main bool) (ticks, rss, vsz uint64, ok bool) {
	var err error
	if s.buf, err = readFile("/proc/"+strconv.Itoa(pid)+"/stat", s.buf); err != nil {
		return 0, 0, 0, false
	}
	// The command name is in parentheses and may contain spaces: fields start after the last ')'.
	i := bytes.LastIndexByte(s.buf, ')')
	if i < 0 {
		return 0, 0, 0, false
	}
	f := bytes.Fields(s.buf[i+1:])
	// After the name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14) ...
	// vsize(20) rss(21, pages).
	if len(f) < 22 {
		return 0, 0, 0, false
	}
	v := parseUints([][]byte{f[11], f[12], f[13], f[14], f[20], f[21]})
	ticks = v[0] + v[1]
	if main {
		ticks += v[2] + v[3]
	}
	return ticks, v[5] * uint64(os.Getpagesize()), v[4], true
}

func readFile(path string, buf []byte) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return buf, err
	}
	defer f.Close()
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

func parseUints(f [][]byte) []uint64 {
	v := make([]uint64, len(f))
	for i, b := range f {
		v[i], _ = strconv.ParseUint(string(b), 10, 64)
	}
	return v
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// devicesOf names the block device holding path, as /proc/diskstats names it: the device
// whose major:minor is the file system's. A file system on device-mapper or a partition is
// counted at that device; one without a block device (tmpfs, overlay) has none.
func devicesOf(path string) []string {
	var st unix.Stat_t
	for p := path; ; p = filepath.Dir(p) { // the nearest existing ancestor
		if unix.Stat(p, &st) == nil || p == "/" || p == "." {
			break
		}
	}
	major, minor := unix.Major(st.Dev), unix.Minor(st.Dev)
	f, err := os.Open("/proc/diskstats")
	if err != nil {
		return nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fl := strings.Fields(sc.Text())
		if len(fl) > 3 && fl[0] == fmt.Sprint(major) && fl[1] == fmt.Sprint(minor) {
			return []string{fl[2]}
		}
	}
	return nil
}

// HostInterval is what the host did between two samples, as rates and shares.
type HostInterval struct {
	Seconds                        float64
	CPUUserPct, CPUSystemPct       float64 // of all cores: 100% = every core busy
	CPUIOWaitPct, CPUIdlePct       float64
	CPUBusyPct                     float64 // user + nice + system + irq + softirq + steal
	CPUBusySec                     float64 // host CPU seconds used
	CtxPerSec                      float64
	ReadsPerSec, ReadKBPerSec      float64
	WritesPerSec, WriteKBPerSec    float64
	Reads, Writes, ReadKB, WriteKB float64 // totals of the interval
	Ctx                            float64
	DBMSCPUSec                     float64
	DBMSRSSMB, DBMSVSZMB           float64 // at the end of the interval
	ClientCPUSec                   float64
	HasDisk, HasDBMS               bool
}

// Diff returns the interval from a to b.
func Diff(a, b HostSample) HostInterval {
	iv := HostInterval{Seconds: b.At.Sub(a.At).Seconds(), HasDisk: b.diskFound, HasDBMS: b.dbmsProcsFound}
	d := func(x, y uint64) float64 {
		if y < x {
			return 0 // a counter that went back (device or process gone): no figure
		}
		return float64(y - x)
	}
	user, nice, sys := d(a.User, b.User), d(a.Nice, b.Nice), d(a.System, b.System)
	idle, iowait := d(a.Idle, b.Idle), d(a.IOWait, b.IOWait)
	other := d(a.IRQ, b.IRQ) + d(a.SoftIRQ, b.SoftIRQ) + d(a.Steal, b.Steal)
	total := user + nice + sys + idle + iowait + other
	if total > 0 {
		iv.CPUUserPct = 100 * (user + nice) / total
		iv.CPUSystemPct = 100 * sys / total
		iv.CPUIOWaitPct = 100 * iowait / total
		iv.CPUIdlePct = 100 * idle / total
		iv.CPUBusyPct = 100 * (user + nice + sys + other) / total
	}
	iv.CPUBusySec = (user + nice + sys + other) / clockTicks
	iv.Ctx = d(a.Ctxt, b.Ctxt)
	iv.Reads, iv.Writes = d(a.Reads, b.Reads), d(a.Writes, b.Writes)
	iv.ReadKB, iv.WriteKB = d(a.SectorsRead, b.SectorsRead)/2, d(a.SectorsWritten, b.SectorsWritten)/2
	if iv.Seconds > 0 {
		iv.CtxPerSec = iv.Ctx / iv.Seconds
		iv.ReadsPerSec, iv.ReadKBPerSec = iv.Reads/iv.Seconds, iv.ReadKB/iv.Seconds
		iv.WritesPerSec, iv.WriteKBPerSec = iv.Writes/iv.Seconds, iv.WriteKB/iv.Seconds
	}
	iv.DBMSCPUSec = d(a.DBMSTicks, b.DBMSTicks) / clockTicks
	iv.DBMSRSSMB, iv.DBMSVSZMB = float64(b.DBMSRSS)/(1<<20), float64(b.DBMSVSZ)/(1<<20)
	iv.ClientCPUSec = b.Client.Sub(a.Client).Total().Seconds()
	return iv
}
