package bench

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// childCPU is the CPU time (user + system) process pid has used, from
// /proc (clock ticks of 10 ms), or 0 when it cannot be read.
func childCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command name, which is in parentheses and
	// may hold spaces: state is field 3, utime 14 and stime 15.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0
	}
	var utime, stime int64
	if _, err := fmt.Sscan(f[11], &utime); err != nil {
		return 0
	}
	if _, err := fmt.Sscan(f[12], &stime); err != nil {
		return 0
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond
}
