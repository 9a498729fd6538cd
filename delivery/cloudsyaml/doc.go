// Package cloudsyaml renders and parses clouds.yaml documents, the format
// OpenStack clients (openstacksdk/keystoneauth, gophercloud's clientconfig,
// K-ORC) read their credentials from.
//
// Two kinds of document are produced:
//
//   - password auth (Password): auth_url, username, password, user and project
//     domain names, project name. This is the consumer document of a
//     KeystoneService account (docs/reference/keystoneservice.md, "Consumer
//     Secret contract": the <name>-credentials Secret, key clouds.yaml, "naming
//     the auth URL, the user, the project, and both domain names") and the
//     password cloud a managed K-ORC child authenticates with.
//   - application-credential auth (ApplicationCredential): auth_type
//     v3applicationcredential with application_credential_id and
//     application_credential_secret
//     (docs/reference/keystoneapplicationcredential.md, "Delivered Secret
//     contract": "clouds.yaml is a v3applicationcredential document with the
//     auth URL, the credential id and its secret").
//
// Every document carries identity_api_version 3. The endpoint interface is
// written under both interface (what openstacksdk and the openstack CLI read)
// and endpoint_type (what K-ORC reads; it ignores interface). A CA bundle is
// referenced by file path (cacert); the delivered consumer documents carry
// none (docs/reference/keystoneapplicationcredential.md, "Delivered Secret
// contract": the document "carries no CA bundle").
//
// The types are gophercloud's (github.com/gophercloud/gophercloud/v2
// openstack/config/clouds); this package adds the constructors, the
// validation and a rendering that writes identity_api_version as a number.
// Documents are YAML produced through sigs.k8s.io/yaml (JSON field names,
// sorted keys), so a rendered document parses back into the same value.
package cloudsyaml
