package keystoneapplicationcredential

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/applicationcredential"
)

// revokeAnswer is one answer of a scripted Revoker.
type revokeAnswer struct {
	existed bool
	err     error
}

// TestConfirmRevoked: status.previousCredential* may go only once Keystone
// answered the deletion (204, or 404 for one K-ORC deleted); any other
// failure keeps it for the next pass; a refused login is not tried again
// until the user's password generation changes (no added failed logins
// toward Keystone's lockout); once the live credential is within the grace
// period of its expiry an unconfirmed credential is forgotten on K-ORC's
// word, so the live credential's rotation can start; without the mint
// parameters K-ORC's word is taken (docs/reference/keystoneapplicationcredential.md, "Rotation").
func TestConfirmRevoked(t *testing.T) {
	refused := fmt.Errorf("%w: 401", ErrLoginRefused)
	type step struct {
		passwordGen int64
		wantCalled  bool
		want        bool
		nearExpiry  bool // the live credential is within the grace period of its expiry
	}
	for _, tc := range []struct {
		name    string
		noMint  bool
		answers []revokeAnswer
		steps   []step
	}{
		{"404: K-ORC deleted it", false, []revokeAnswer{{false, nil}}, []step{{1, true, true, false}}},
		{"204: the hub deleted it", false, []revokeAnswer{{true, nil}}, []step{{1, true, true, false}}},
		{"transport error, then answered", false, []revokeAnswer{{false, errors.New("connection refused")}, {false, nil}},
			[]step{{1, true, false, false}, {1, true, true, false}}},
		{"login refused: waits for the next password generation", false, []revokeAnswer{{false, refused}, {false, nil}},
			[]step{{1, true, false, false}, {1, false, false, false}, {1, false, false, false}, {2, true, true, false}}},
		{"no mint parameters", true, nil, []step{{1, false, true, false}}},
		{"unconfirmed near the live credential's expiry: K-ORC's word", false,
			[]revokeAnswer{{false, errors.New("connection refused")}, {false, errors.New("connection refused")}},
			[]step{{1, true, false, false}, {1, true, true, true}}},
		{"refused login near the live credential's expiry: not tried again, K-ORC's word", false,
			[]revokeAnswer{{false, refused}},
			[]step{{1, true, false, false}, {1, false, true, true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			r := &Reconciler{revoker: func(_ context.Context, req RevokeRequest) (bool, error) {
				if req.CredentialID != "prev-id" || req.Mint.UserID != "user-id" {
					t.Errorf("revoke request %+v", req)
				}
				a := tc.answers[calls]
				calls++
				return a.existed, a.err
			}}
			for i, s := range tc.steps {
				now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
				expires := metav1.NewTime(now.Add(time.Hour))
				if s.nearExpiry {
					expires = metav1.NewTime(now.Add(10 * time.Second))
				}
				p := &pass{r: r, prefix: "order", passwordGen: s.passwordGen, now: now,
					schedule: applicationcredential.Schedule{Interval: 2 * time.Hour, GracePeriod: 30 * time.Second},
					st: c5c3v1alpha1.KeystoneApplicationCredentialStatus{PreviousCredentialID: "prev-id", PreviousCredentialGeneration: 1,
						CredentialExpiresAt: &expires}}
				if !tc.noMint {
					p.mint = &applicationcredential.MintParams{UserID: "user-id"}
				}
				before := calls
				got := p.confirmRevoked(context.Background(), 1)
				if called := calls > before; called != s.wantCalled {
					t.Errorf("step %d: revoker called %t, want %t", i, called, s.wantCalled)
				}
				if got != s.want || p.revokePending == got {
					t.Errorf("step %d: confirmed %t (pending %t), want %t", i, got, p.revokePending, s.want)
				}
			}
		})
	}
}
