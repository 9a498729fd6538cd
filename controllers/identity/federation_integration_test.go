//go:build integration

package identity

import (
	"context"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/c5c3/orderhub/internal/keystone"
)

// Helpers of the federation kinds' tests: they read and change Keystone
// straight through the admin session, not through the code under test.

// fedURL is the URL of an OS-FEDERATION object of the test Keystone.
func fedURL(parts ...string) string {
	return admin.ServiceURL(append([]string{"OS-FEDERATION"}, parts...)...)
}

// ksFed GETs an OS-FEDERATION object and returns its member (e.g.
// "identity_provider"); found is false on a 404.
func ksFed(t *testing.T, member string, parts ...string) (obj map[string]any, found bool) {
	t.Helper()
	var body map[string]map[string]any
	if _, err := admin.Get(context.Background(), fedURL(parts...), &body, nil); err != nil {
		if keystone.IsNotFound(err) {
			return nil, false
		}
		t.Fatal(err)
	}
	return body[member], true
}

// ksFedPatch changes an OS-FEDERATION object out of band.
func ksFedPatch(t *testing.T, member string, fields map[string]any, parts ...string) {
	t.Helper()
	if _, err := admin.Patch(context.Background(), fedURL(parts...), map[string]any{member: fields}, nil, nil); err != nil {
		t.Fatal(err)
	}
}

// waitGone waits until the resource obj no longer exists in the API server.
func waitGone(t *testing.T, obj client.Object) {
	t.Helper()
	eventually(t, obj.GetName()+" gone", func() (bool, string) {
		err := k8s.Get(context.Background(), client.ObjectKeyFromObject(obj), obj)
		return apierrors.IsNotFound(err), fmt.Sprint(err)
	})
}

// waitFed waits until the OS-FEDERATION object at parts satisfies ok.
func waitFed(t *testing.T, what, member string, ok func(obj map[string]any, found bool) (bool, string), parts ...string) {
	t.Helper()
	eventually(t, what, func() (bool, string) {
		o, found := ksFed(t, member, parts...)
		return ok(o, found)
	})
}
