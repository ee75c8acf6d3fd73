package cron_test

import (
	"fmt"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/cron"
)

func Example() {
	// Weekdays at 08:30 in New York, as a CronJob with
	// spec.timeZone America/New_York is run.
	s, err := cron.Parse("CRON_TZ=America/New_York 30 8 * * mon-fri")
	if err != nil {
		fmt.Println(err)
		return
	}
	// A Friday, 07:00 in New York; clocks move to summer time on
	// Sunday the 9th.
	at := time.Date(2025, 3, 7, 12, 0, 0, 0, time.UTC)
	for range 3 {
		at = s.Next(at)
		fmt.Println(at.Format(time.RFC3339))
	}

	_, err = cron.Parse("61 * * * *")
	fmt.Println(err)
	// Output:
	// 2025-03-07T13:30:00Z
	// 2025-03-10T12:30:00Z
	// 2025-03-11T12:30:00Z
	// end of range (61) above maximum (59): 61
}
