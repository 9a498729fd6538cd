package identity

import (
	"errors"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
)

func TestFieldsOf(t *testing.T) {
	t.Parallel()
	if got := fieldsOf(domains.UpdateOpts{Description: ptr("d"), Enabled: ptr(false)}.ToDomainUpdateMap()); got != "description, enabled" {
		t.Errorf("domain fields = %q", got)
	}
	if got := fieldsOf(users.UpdateOpts{DefaultProjectID: "p"}.ToUserUpdateMap()); got != "default_project_id" {
		t.Errorf("user fields = %q", got)
	}
	if got := fieldsOf(endpointUpdate{URL: "http://x"}.ToEndpointUpdateMap()); got != "url" {
		t.Errorf("endpoint fields = %q", got)
	}
	if got := fieldsOf(nil, errors.New("x")); got != "" {
		t.Errorf("fields of an error = %q", got)
	}
	if got := updated("domain d", "enabled"); got != "updated domain d (enabled)" {
		t.Errorf("updated = %q", got)
	}
}
