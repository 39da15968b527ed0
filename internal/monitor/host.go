package monitor

import (
	"path/filepath"
	"time"

	"github.com/dbperf/dbperf/internal/hostproc"
	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"
	"golang.org/x/sys/unix"
)

// HostSample is one reading of the host's counters. Counters only grow; an interval's figures
// are the difference of two samples.
type HostSample struct {
	At time.Time
	// CPU time of the whole host in seconds, from /proc/stat's "cpu" line.
	User, Nice, System, Idle, IOWait, IRQ, SoftIRQ, Steal float64
	Ctxt                                                  uint64 // context switches
	// Disk counters of the devices holding the database, from /proc/diskstats.
	Reads, SectorsRead, Writes, SectorsWritten uint64
	// DBMS processes: CPU seconds (user+system, and each apart: /proc/PID/stat's utime and
	// stime), and resident and virtual memory now (bytes).
	DBMSCPU           float64
	DBMSUser, DBMSSys float64
	DBMSRSS           uint64
	DBMSVSZ           uint64
	DBMSProcesses     int
	// TopVSZ is the largest VSZ of one DBMS process and TopRSS that process's RSS (bytes): the
	// process the reference's np.sh:597-600 reports for rss.
	TopVSZ, TopRSS uint64
	Client         hostproc.CPUTime // this process
	diskFound      bool
	dbmsProcsFound bool
}

// HostSampler reads /proc through prometheus/procfs. It needs no external tool.
type HostSampler struct {
	fs      procfs.FS
	blk     blockdevice.FS
	devices []string // diskstats names of the devices holding the database
	main    int      // the DBMS's main process, 0 for none
	// children: re-read the main process's children at every sample (PostgreSQL starts a
	// backend per connection and workers for index builds and vacuum while a step runs).
	children bool
}

// NewHostSampler samples the devices holding dataDir (none if empty or unknown) and the DBMS
// process main (0 for none) with, when children is set, every child it has at each sample.
func NewHostSampler(dataDir string, main int, children bool) *HostSampler {
	s := &HostSampler{main: main, children: children}
	s.fs, _ = procfs.NewFS(procfs.DefaultMountPoint)
	s.blk, _ = blockdevice.NewFS(procfs.DefaultMountPoint, "/sys")
	if dataDir != "" {
		s.devices = devicesOf(dataDir)
	}
	return s
}

// Devices names the block devices whose IO is counted.
func (s *HostSampler) Devices() []string { return s.devices }

// Sample reads every counter now.
func (s *HostSampler) Sample() (HostSample, error) {
	h := HostSample{At: time.Now(), Client: hostproc.ProcessCPU()}
	st, err := s.fs.Stat()
	if err != nil {
		return h, err
	}
	c := st.CPUTotal
	h.User, h.Nice, h.System, h.Idle, h.IOWait, h.IRQ, h.SoftIRQ, h.Steal = c.User, c.Nice, c.System, c.Idle, c.Iowait, c.IRQ, c.SoftIRQ, c.Steal
	h.Ctxt = st.ContextSwitches
	if len(s.devices) > 0 {
		stats, err := s.blk.ProcDiskstats()
		if err != nil {
			return h, err
		}
		for _, d := range stats {
			if !contains(s.devices, d.DeviceName) {
				continue
			}
			h.Reads += d.ReadIOs
			h.SectorsRead += d.ReadSectors
			h.Writes += d.WriteIOs
			h.SectorsWritten += d.WriteSectors
			h.diskFound = true
		}
	}
	if s.main != 0 {
		for i, pid := range s.processes() {
			user, sys, rss, vsz, ok := s.process(pid, i == 0)
			if !ok {
				continue // ended since it was listed
			}
			h.DBMSCPU += user + sys
			h.DBMSUser += user
			h.DBMSSys += sys
			h.DBMSRSS += rss
			h.DBMSVSZ += vsz
			h.DBMSProcesses++
			h.dbmsProcsFound = true
			if vsz > h.TopVSZ {
				h.TopVSZ, h.TopRSS = vsz, rss
			}
		}
	}
	return h, nil
}

// processes lists the main process and, if asked, its children now.
func (s *HostSampler) processes() []int {
	pids := []int{s.main}
	if !s.children {
		return pids
	}
	return append(pids, hostproc.Children(s.main)...)
}

// process reads a process's user and system CPU seconds, RSS and VSZ. For the main process it
// adds the CPU of its finished children, so that a PostgreSQL backend or autovacuum worker that
// ends keeps counting, and the totals only grow.
func (s *HostSampler) process(pid int, main bool) (user, sys float64, rss, vsz uint64, ok bool) {
	p, err := s.fs.Proc(pid)
	if err != nil {
		return 0, 0, 0, 0, false
	}
	st, err := p.Stat()
	if err != nil {
		return 0, 0, 0, 0, false
	}
	user, sys = float64(st.UTime)/userHZ, float64(st.STime)/userHZ
	if main {
		user += float64(st.CUTime) / userHZ
		sys += float64(st.CSTime) / userHZ
	}
	return user, sys, uint64(st.ResidentMemory()), uint64(st.VirtualMemory()), true
}

// userHZ is the unit of /proc's CPU times, as procfs assumes: 100 on every Linux architecture
// dbperf runs on (fixed by the kernel ABI, not by CONFIG_HZ).
const userHZ = 100

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
	blk, err := blockdevice.NewFS(procfs.DefaultMountPoint, "/sys")
	if err != nil {
		return nil
	}
	stats, err := blk.ProcDiskstats()
	if err != nil {
		return nil
	}
	for _, d := range stats {
		if d.MajorNumber == unix.Major(st.Dev) && d.MinorNumber == unix.Minor(st.Dev) {
			return []string{d.DeviceName}
		}
	}
	return nil
}

// HostInterval is what the host did between two samples, as rates and shares.
type HostInterval struct {
	Seconds                  float64
	CPUUserPct, CPUSystemPct float64 // of all cores: 100% = every core busy
	CPUIOWaitPct, CPUIdlePct float64
	CPUBusyPct               float64 // user + nice + system + irq + softirq + steal
	CPUBusySec               float64 // host CPU seconds used, steal included
	CPUTotalSec              float64 // the host's CPU capacity over the interval: cores × seconds
	// CPUUsSyPct is vmstat's us + sy, the reference's cpups (ios.sh:58): user + nice + system +
	// irq + softirq, without steal; CPUUsSySec the same in seconds (its cpupq, etl.sh:66-70).
	CPUUsSyPct, CPUUsSySec         float64
	CtxPerSec                      float64
	ReadsPerSec, ReadKBPerSec      float64
	WritesPerSec, WriteKBPerSec    float64
	Reads, Writes, ReadKB, WriteKB float64 // totals of the interval
	Ctx                            float64
	DBMSCPUSec                     float64
	DBMSUserSec, DBMSSysSec        float64 // DBMSCPUSec's user and system parts
	DBMSRSSMB, DBMSVSZMB           float64 // at the end of the interval, all DBMS processes
	TopVSZMB, TopRSSMB             float64 // the DBMS process with the largest VSZ
	ClientCPUSec                   float64
	ClientUserSec, ClientSysSec    float64 // ClientCPUSec's user and system parts
	HasDisk, HasDBMS               bool
}

// Diff returns the interval from a to b, over the samples' own times.
func Diff(a, b HostSample) HostInterval { return DiffOver(a, b, b.At.Sub(a.At).Seconds()) }

// DiffOver returns the interval from a to b with rates over seconds: the runner's interval,
// whose boundaries the samples were taken at.
func DiffOver(a, b HostSample, seconds float64) HostInterval {
	iv := HostInterval{Seconds: seconds, HasDisk: b.diskFound, HasDBMS: b.dbmsProcsFound}
	d := func(x, y uint64) float64 {
		if y < x {
			return 0 // a counter that went back (device or process gone): no figure
		}
		return float64(y - x)
	}
	f := func(x, y float64) float64 { return max(0, y-x) }
	user, nice, sys := f(a.User, b.User), f(a.Nice, b.Nice), f(a.System, b.System)
	idle, iowait := f(a.Idle, b.Idle), f(a.IOWait, b.IOWait)
	irq := f(a.IRQ, b.IRQ) + f(a.SoftIRQ, b.SoftIRQ)
	other := irq + f(a.Steal, b.Steal)
	total := user + nice + sys + idle + iowait + other
	if total > 0 {
		iv.CPUUserPct = 100 * (user + nice) / total
		iv.CPUSystemPct = 100 * sys / total
		iv.CPUIOWaitPct = 100 * iowait / total
		iv.CPUIdlePct = 100 * idle / total
		iv.CPUBusyPct = 100 * (user + nice + sys + other) / total
		iv.CPUUsSyPct = 100 * (user + nice + sys + irq) / total
	}
	iv.CPUUsSySec = user + nice + sys + irq
	iv.CPUBusySec = user + nice + sys + other
	iv.CPUTotalSec = total
	iv.Ctx = d(a.Ctxt, b.Ctxt)
	iv.Reads, iv.Writes = d(a.Reads, b.Reads), d(a.Writes, b.Writes)
	iv.ReadKB, iv.WriteKB = d(a.SectorsRead, b.SectorsRead)/2, d(a.SectorsWritten, b.SectorsWritten)/2
	if iv.Seconds > 0 {
		iv.CtxPerSec = iv.Ctx / iv.Seconds
		iv.ReadsPerSec, iv.ReadKBPerSec = iv.Reads/iv.Seconds, iv.ReadKB/iv.Seconds
		iv.WritesPerSec, iv.WriteKBPerSec = iv.Writes/iv.Seconds, iv.WriteKB/iv.Seconds
	}
	iv.DBMSCPUSec = f(a.DBMSCPU, b.DBMSCPU)
	iv.DBMSUserSec, iv.DBMSSysSec = f(a.DBMSUser, b.DBMSUser), f(a.DBMSSys, b.DBMSSys)
	iv.DBMSRSSMB, iv.DBMSVSZMB = float64(b.DBMSRSS)/(1<<20), float64(b.DBMSVSZ)/(1<<20)
	iv.TopVSZMB, iv.TopRSSMB = float64(b.TopVSZ)/(1<<20), float64(b.TopRSS)/(1<<20)
	c := b.Client.Sub(a.Client)
	iv.ClientCPUSec, iv.ClientUserSec, iv.ClientSysSec = c.Total().Seconds(), c.User.Seconds(), c.System.Seconds()
	return iv
}
