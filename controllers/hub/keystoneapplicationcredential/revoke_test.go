package keystoneapplicationcredential

import (
	"context"
	"errors"
	"fmt"
	"testing"

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
// toward Keystone's lockout); without the mint parameters K-ORC's word is
// taken (docs/reference/keystoneapplicationcredential.md, "Rotation").
func TestConfirmRevoked(t *testing.T) {
	refused := fmt.Errorf("%w: 401", ErrLoginRefused)
	type step struct {
		passwordGen int64
		wantCalled  bool
		want        bool
	}
	for _, tc := range []struct {
		name    string
		noMint  bool
		answers []revokeAnswer
		steps   []step
	}{
		{"404: K-ORC deleted it", false, []revokeAnswer{{false, nil}}, []step{{1, true, true}}},
		{"204: the hub deleted it", false, []revokeAnswer{{true, nil}}, []step{{1, true, true}}},
		{"transport error, then answered", false, []revokeAnswer{{false, errors.New("connection refused")}, {false, nil}},
			[]step{{1, true, false}, {1, true, true}}},
		{"login refused: waits for the next password generation", false, []revokeAnswer{{false, refused}, {false, nil}},
			[]step{{1, true, false}, {1, false, false}, {1, false, false}, {2, true, true}}},
		{"no mint parameters", true, nil, []step{{1, false, true}}},
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
				p := &pass{r: r, prefix: "order", passwordGen: s.passwordGen,
					st: c5c3v1alpha1.KeystoneApplicationCredentialStatus{PreviousCredentialID: "prev-id", PreviousCredentialGeneration: 1}}
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
