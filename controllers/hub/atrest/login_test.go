package atrest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
)

func TestClassifyLogin(t *testing.T) {
	t.Parallel()
	code := func(c int) error {
		return fmt.Errorf("authenticate: %w", gophercloud.ErrUnexpectedResponseCode{Actual: c, Expected: []int{201}})
	}
	for _, tc := range []struct {
		err  error
		want LoginOutcome
	}{
		{nil, LoginAccepted},
		{code(401), LoginRefused},
		{code(404), LoginRefused},
		{code(500), LoginUnanswered},
		{code(503), LoginUnanswered},
		{code(403), LoginOtherAnswer},
		{code(400), LoginOtherAnswer},
		{fmt.Errorf("login: %w", context.DeadlineExceeded), LoginUnanswered},
		{fmt.Errorf("dial: %w", syscall.ECONNREFUSED), LoginUnanswered},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), LoginUnanswered},
		{io.ErrUnexpectedEOF, LoginUnanswered},
		{errors.New("user gone"), LoginOtherAnswer},
	} {
		if got := ClassifyLogin(tc.err); got != tc.want {
			t.Errorf("ClassifyLogin(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}
