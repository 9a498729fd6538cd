package testenv

import (
	"context"
	"fmt"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"

	"github.com/c5c3/orderhub/delivery/cloudsyaml"
)

// Authenticate requests a token with a delivered clouds.yaml cloud, as a
// consumer would: a v3applicationcredential cloud with its id and secret, a
// password cloud with the user, its domain and (when named) the project
// scope. It returns the token's ID. Errors: Keystone's refusal or a
// transport failure.
func Authenticate(ctx context.Context, c cloudsyaml.Cloud) (string, error) {
	a := cloudsyaml.AuthOf(c)
	opts := gophercloud.AuthOptions{IdentityEndpoint: a.AuthURL}
	switch c.AuthType {
	case cloudsyaml.AuthTypeV3ApplicationCredential:
		opts.ApplicationCredentialID = a.ApplicationCredentialID
		opts.ApplicationCredentialName = a.ApplicationCredentialName
		opts.ApplicationCredentialSecret = a.ApplicationCredentialSecret
		opts.Username, opts.UserID, opts.DomainName = a.Username, a.UserID, a.UserDomainName
	default:
		opts.Username, opts.UserID, opts.Password = a.Username, a.UserID, a.Password
		opts.DomainName, opts.DomainID = a.UserDomainName, a.UserDomainID
		if a.ProjectName != "" || a.ProjectID != "" {
			opts.Scope = &gophercloud.AuthScope{ProjectName: a.ProjectName, ProjectID: a.ProjectID,
				DomainName: a.ProjectDomainName, DomainID: a.ProjectDomainID}
		}
	}
	pc, err := openstack.AuthenticatedClient(ctx, opts)
	if err != nil {
		return "", fmt.Errorf("authenticate at %s: %w", a.AuthURL, err)
	}
	return pc.Token(), nil
}
