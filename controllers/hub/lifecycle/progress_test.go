package lifecycle

import (
	"errors"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func TestProgressResult(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	asked := false
	cases := []struct {
		name    string
		p       Progress
		want    reconcile.Result
		wantErr error
	}{
		{"a watch resumes the pass", Watch(), reconcile.Result{}, nil},
		{"poll after a delay", After(3 * time.Second), reconcile.Result{RequeueAfter: 3 * time.Second}, nil},
		{"a negative delay is a watch", After(-time.Second), reconcile.Result{}, nil},
		{"the delay asked after the write", AfterWrite(func() time.Duration { asked = true; return time.Minute }),
			reconcile.Result{RequeueAfter: time.Minute}, nil},
		{"an error wins over any delay", Failed(boom), reconcile.Result{}, boom},
	}
	for _, tc := range cases {
		got, err := tc.p.Result()
		if got != tc.want || !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
			t.Errorf("%s: Result() = %+v, %v; want %+v, %v", tc.name, got, err, tc.want, tc.wantErr)
		}
	}
	if !asked {
		t.Error("AfterWrite's function was never asked")
	}
}
