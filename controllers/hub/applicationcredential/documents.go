package applicationcredential

import (
	"fmt"
	"strconv"
	"strings"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"

	"github.com/c5c3/orderhub/delivery/cloudsyaml"
	"github.com/c5c3/orderhub/delivery/openbao"
	"github.com/c5c3/orderhub/korc"
)

// MintCloudName is the cloud name inside the mint-cloud document; the K-ORC
// ApplicationCredentials' cloudCredentialsRef.cloudName names it.
const MintCloudName = "mint"

// SecretValueKey is the key of a secret-v<N> Secret K-ORC reads the
// credential's secret from (K-ORC internal/controllers/applicationcredential:
// secret.Data["value"]; docs/reference/keystoneapplicationcredential.md,
// "Projected child names": "key value").
const SecretValueKey = "value"

// DeliveredKeys are the keys of the delivered Secret, also reported in
// status.secretKeys (docs/reference/keystoneapplicationcredential.md,
// "Delivered Secret contract", row "Data keys").
var DeliveredKeys = []string{openbao.PropertyCloudsYAML, openbao.PropertyApplicationCredentialID,
	openbao.PropertyApplicationCredentialSecret}

// MintParams are the inputs of the mint-cloud document: the ordered user's
// password clouds.yaml scoped to the ordered project, which K-ORC creates
// and deletes every credential generation with
// (docs/reference/keystoneapplicationcredential.md, "Projected child names",
// discriminator mint-cloud). The user is named by UserID when set (else
// UserName in UserDomain), the project by ProjectID when set (else ProjectName
// in ProjectDomain): ids need no domain.
type MintParams struct {
	AuthURL                      string
	UserID, UserName, UserDomain string
	Password                     []byte
	ProjectID                    string
	ProjectName, ProjectDomain   string
	Region, Interface            string
	CABundle                     []byte // K-ORC's cacert key; nil omits it
}

// MintCloudData is the mint-cloud Secret's data: clouds.yaml with the single
// cloud MintCloudName, and cacert (orcv1alpha1.CloudCredencialsCASecretKey)
// when p carries a CA bundle. Errors: the cloud does not validate (no auth
// URL, no user, no password); messages never carry the password.
func MintCloudData(p MintParams) (map[string][]byte, error) {
	c := cloudsyaml.Password(cloudsyaml.PasswordParams{AuthURL: p.AuthURL, Password: string(p.Password),
		Region: p.Region, Interface: p.Interface})
	if p.UserID != "" {
		c.Auth.UserID = p.UserID
	} else {
		c.Auth.Username, c.Auth.UserDomainName = p.UserName, p.UserDomain
	}
	if p.ProjectID != "" {
		c.Auth.ProjectID = p.ProjectID
	} else {
		c.Auth.ProjectName, c.Auth.ProjectDomainName = p.ProjectName, p.ProjectDomain
	}
	if c.Auth.ProjectID == "" && c.Auth.ProjectName == "" {
		return nil, fmt.Errorf("applicationcredential: the mint-cloud document needs the project")
	}
	doc, err := cloudsyaml.Render(MintCloudName, c)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{cloudsyaml.Key: doc}
	if len(p.CABundle) > 0 {
		out[orcv1alpha1.CloudCredencialsCASecretKey] = p.CABundle
	}
	return out, nil
}

// DeliveredParams are the inputs of the delivered document.
type DeliveredParams struct {
	// CloudName is the cloud's name in clouds.yaml: the order's name.
	CloudName string
	// AuthURL is orders.DeliveredAuthURL for the order's cluster.
	AuthURL           string
	ID, Secret        string
	Region, Interface string
}

// DeliveredData is the delivered Secret's (and the backup's) data: a
// v3applicationcredential clouds.yaml without CA bundle, and the id and
// secret on their own (docs/reference/keystoneapplicationcredential.md,
// "Delivered Secret contract"). Errors: the cloud does not validate.
func DeliveredData(p DeliveredParams) (map[string][]byte, error) {
	doc, err := cloudsyaml.Render(p.CloudName, cloudsyaml.ApplicationCredential(cloudsyaml.ApplicationCredentialParams{
		AuthURL: p.AuthURL, ID: p.ID, Secret: p.Secret, Region: p.Region, Interface: p.Interface}))
	if err != nil {
		return nil, err
	}
	return map[string][]byte{
		openbao.PropertyCloudsYAML:                  doc,
		openbao.PropertyApplicationCredentialID:     []byte(p.ID),
		openbao.PropertyApplicationCredentialSecret: []byte(p.Secret),
	}, nil
}

// GenerationOfChild parses N out of a child name prefix+"credential-v<N>"
// or prefix+"secret-v<N>" (korc.CredentialDiscriminator,
// korc.SecretDiscriminator); prefix is korc.ChildPrefix of the order. ok
// is false for any other name, or N < 1.
func GenerationOfChild(prefix, name string) (gen int64, ok bool) {
	rest, found := strings.CutPrefix(name, prefix)
	if !found {
		return 0, false
	}
	for _, d := range []string{korc.CredentialDiscriminator(0), korc.SecretDiscriminator(0)} {
		stem := strings.TrimSuffix(d, "0")
		if n, ok := strings.CutPrefix(rest, stem); ok {
			g, err := strconv.ParseInt(n, 10, 64)
			if err != nil || g < 1 || strconv.FormatInt(g, 10) != n {
				return 0, false
			}
			return g, true
		}
	}
	return 0, false
}

// createFailurePrefix is the message K-ORC v2.6.0 writes on a create that
// failed with an error it does not consider retryable
// (internal/controllers/applicationcredential/actuator.go CreateResource).
const createFailurePrefix = "invalid configuration creating resource: "

// httpErrorMarker is in every gophercloud ErrUnexpectedResponseCode message:
// an answer Keystone gave, as opposed to a request that never got one.
const httpErrorMarker = "Expected HTTP response code"

// LatchedTransportError reports a credential K-ORC latched a terminal error
// on although Keystone never answered: K-ORC v2.6.0 treats every error that
// is not an HTTP response (orcerrors.IsRetryable) as terminal when it
// creates an application credential, so a refused connection or a timeout
// leaves the object Failed (InvalidConfiguration) until its spec changes,
// and an ApplicationCredential's spec.resource is immutable. The reconciler
// clears such an error by removing K-ORC's Progressing condition, which
// makes K-ORC reconcile the object again (reason TransportErrorRetryFailed
// when that write fails). A terminal error Keystone answered (409 Conflict)
// is not latched transport and stays CredentialFailed.
func LatchedTransportError(s korc.State) bool {
	return s.Phase == korc.PhaseFailed && s.Reason == orcv1alpha1.ConditionReasonInvalidConfiguration &&
		strings.HasPrefix(s.Message, createFailurePrefix) && !strings.Contains(s.Message, httpErrorMarker)
}

// unauthorizedMarker is in a gophercloud ErrUnexpectedResponseCode message
// for a 401 answer ("… but got 401 instead").
const unauthorizedMarker = "but got 401 instead"

// AuthenticationFailure reports a terminal error K-ORC latched because
// Keystone refused the mint-cloud's credentials (HTTP 401), e.g. a user
// password rotated after the document was written: a newer document can
// cure it.
func AuthenticationFailure(s korc.State) bool {
	return s.Phase == korc.PhaseFailed && strings.Contains(s.Message, unauthorizedMarker)
}

// CreatableGeneration checks that generation gen is new to the order: above
// the delivered generation current and the superseded generation previous
// (status.credentialGeneration, status.previousCredentialGeneration). A
// generation at or below either names a credential a consumer holds or
// held; creating (or silently adopting) it again would mix two purposes
// under one name. Error: gen is not new.
func CreatableGeneration(gen, current, previous int64) error {
	if gen <= current || gen <= previous {
		return fmt.Errorf("generation %d is not new: the order holds generation %d (previous %d)", gen, current, previous)
	}
	return nil
}

// AdoptableChild checks that a child found under the name of a generation
// createGeneration means to create new (its create answered AlreadyExists)
// is that same generation's, left by an earlier pass whose write the cache
// did not show yet: it carries every label in want (the order's
// orders.ChildLabels) and is not being deleted. Error otherwise: the name
// is taken for a different purpose (another order, or a generation being
// deleted), and the pass must not pretend it created it.
func AdoptableChild(kind, name string, labels, want map[string]string, deleting bool) error {
	for k, v := range want {
		if labels[k] != v {
			return fmt.Errorf("%s %s exists and is not this order's (label %s=%q, want %q)", kind, name, k, labels[k], v)
		}
	}
	if deleting {
		return fmt.Errorf("%s %s exists and is being deleted; it is created again once it is gone", kind, name)
	}
	return nil
}

// AnnotationMintPasswordGeneration, on a credential-v<N> K-ORC
// ApplicationCredential, records the user's status.passwordGeneration the
// mint-cloud document was built from when the child was created
// (Credential.PasswordGeneration): an authentication failure of a
// credential created with an older password generation is cured by
// creating it again (Decide, ReplacePasswordRotated).
const AnnotationMintPasswordGeneration = "c5c3.io/mint-password-generation"

// MintPasswordGenerationOf parses AnnotationMintPasswordGeneration out of
// annotations; 0 when absent or not a positive integer.
func MintPasswordGenerationOf(annotations map[string]string) int64 {
	g, err := strconv.ParseInt(annotations[AnnotationMintPasswordGeneration], 10, 64)
	if err != nil || g < 1 {
		return 0
	}
	return g
}
