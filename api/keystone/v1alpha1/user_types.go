package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// DefaultPasswordKey is the Secret key read when passwordSecret.key is empty:
// the key of the <service>-keystone-<userClass> openrc Secrets.
const DefaultPasswordKey = "OS_PASSWORD"

// PasswordSecretRef names the Secret, in the resource's namespace, and the key
// that hold a user's password.
type PasswordSecretRef struct {
	// Name of the Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// Key within the Secret. Default OS_PASSWORD.
	// +optional
	// +kubebuilder:default=OS_PASSWORD
	// +kubebuilder:validation:MaxLength=253
	Key string `json:"key,omitempty"`
}

// UserSpec declares a Keystone user with its password in a Secret.
// +kubebuilder:validation:XValidation:rule=`(has(self.domain) && self.domain.lowerAscii() != "default" ? self.domain : "") == (has(oldSelf.domain) && oldSelf.domain.lowerAscii() != "default" ? oldSelf.domain : "")`,message="spec.domain is immutable: Keystone does not move a user to another domain; create a new User resource and delete this one"
type UserSpec struct {
	CommonSpec `json:",inline"`

	// Name is the Keystone user name, unique within its domain. It may contain
	// characters a Kubernetes name may not, such as an underscore. A changed
	// name renames the user in place, keeping its ID, password and grants
	// (docs/identity.md, "Edits").
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	Name string `json:"name"`

	// Domain is the name of the user's domain. Empty means the default domain.
	// Immutable ("" and "Default" are the same domain).
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Domain string `json:"domain,omitempty"`

	// Description of the user. When set, it is applied on create and whenever it
	// differs; empty leaves the description in Keystone as it is.
	// +optional
	Description string `json:"description,omitempty"`

	// DefaultProject is the user's default project. It must exist in Keystone.
	// +optional
	DefaultProject *NamedInDomain `json:"defaultProject,omitempty"`

	// Enabled is whether the user is enabled. Default true.
	// +optional
	// +kubebuilder:default=true
	Enabled *bool `json:"enabled,omitempty"`

	// PasswordSecret names the Secret key that holds the password. The
	// controller tries the password first (an unscoped token) and writes it
	// only when Keystone answers 401, and only when the Secret's value or the
	// spec changed, or on the periodic forced resync.
	PasswordSecret PasswordSecretRef `json:"passwordSecret"`
}

// UserStatus is the observed state of a User.
type UserStatus struct {
	CommonStatus `json:",inline"`
	// UserID is the ID Keystone assigned to the user.
	// +optional
	UserID string `json:"userID,omitempty"`
}

// User is a Keystone user account whose password lives in a Secret.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories={keystone,orderhub},shortName=kuser
// +kubebuilder:printcolumn:name="Keystone Name",type=string,JSONPath=`.spec.name`
// +kubebuilder:printcolumn:name="Domain",type=string,JSONPath=`.spec.domain`
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.userID`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type User struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   UserSpec   `json:"spec"`
	Status UserStatus `json:"status,omitempty"`
}

// UserList is a list of Users.
// +kubebuilder:object:root=true
type UserList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []User `json:"items"`
}

func init() { SchemeBuilder.Register(&User{}, &UserList{}) }
