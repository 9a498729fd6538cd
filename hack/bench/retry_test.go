package main

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
)

func TestRetryBusy(t *testing.T) {
	t.Parallel()
	answer := func(code int) error { return gophercloud.ErrUnexpectedResponseCode{Actual: code} }
	other := errors.New("refused")
	tests := []struct {
		name    string
		answers []error // one per call; nil succeeds
		calls   int
		ok      func(error) bool
	}{
		{"first call succeeds", []error{nil}, 1, func(err error) bool { return err == nil }},
		{"a 502 then success", []error{answer(http.StatusBadGateway), nil}, 2, func(err error) bool { return err == nil }},
		{"another error is not retried", []error{other, nil}, 1, func(err error) bool { return errors.Is(err, other) }},
		{"a 403 is not retried", []error{answer(http.StatusForbidden), nil}, 1, func(err error) bool {
			return gophercloud.ResponseCodeIs(err, http.StatusForbidden)
		}},
	}
	for _, tc := range tests {
		calls := 0
		err := retryBusy(context.Background(), func() error {
			calls++
			return tc.answers[calls-1]
		})
		if calls != tc.calls {
			t.Errorf("%s: %d calls, want %d", tc.name, calls, tc.calls)
		}
		if !tc.ok(err) {
			t.Errorf("%s: unexpected error %v", tc.name, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := 0
	if err := retryBusy(ctx, func() error { calls++; return answer(http.StatusServiceUnavailable) }); !errors.Is(err, context.Canceled) || calls != 1 {
		t.Errorf("cancelled while busy: %v after %d calls, want context.Canceled after 1", err, calls)
	}
}
