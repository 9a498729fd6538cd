package v1alpha1

// The accessors below give the topology controller one view of all
// kinds: the cluster reference, the deletion policy and the status.

// ClusterReference returns spec.rabbitmqClusterReference.
func (o *Vhost) ClusterReference() RabbitmqClusterReference { return o.Spec.RabbitmqClusterReference }

// ClusterReference returns spec.rabbitmqClusterReference.
func (o *User) ClusterReference() RabbitmqClusterReference { return o.Spec.RabbitmqClusterReference }

// ClusterReference returns spec.rabbitmqClusterReference.
func (o *Permission) ClusterReference() RabbitmqClusterReference {
	return o.Spec.RabbitmqClusterReference
}

// ClusterReference returns spec.rabbitmqClusterReference.
func (o *Queue) ClusterReference() RabbitmqClusterReference { return o.Spec.RabbitmqClusterReference }

// ClusterReference returns spec.rabbitmqClusterReference.
func (o *Exchange) ClusterReference() RabbitmqClusterReference {
	return o.Spec.RabbitmqClusterReference
}

// ClusterReference returns spec.rabbitmqClusterReference.
func (o *Binding) ClusterReference() RabbitmqClusterReference {
	return o.Spec.RabbitmqClusterReference
}

// ClusterReference returns spec.rabbitmqClusterReference.
func (o *Policy) ClusterReference() RabbitmqClusterReference { return o.Spec.RabbitmqClusterReference }

// effective applies the schema default delete to an unset policy.
func effective(p DeletionPolicy) DeletionPolicy {
	if p == "" {
		return DeletionPolicyDelete
	}
	return p
}

// EffectiveDeletionPolicy returns spec.deletionPolicy; unset means delete.
func (o *Vhost) EffectiveDeletionPolicy() DeletionPolicy { return effective(o.Spec.DeletionPolicy) }

// EffectiveDeletionPolicy returns spec.deletionPolicy; unset means delete.
func (o *User) EffectiveDeletionPolicy() DeletionPolicy { return effective(o.Spec.DeletionPolicy) }

// EffectiveDeletionPolicy returns spec.deletionPolicy; unset means delete.
func (o *Permission) EffectiveDeletionPolicy() DeletionPolicy {
	return effective(o.Spec.DeletionPolicy)
}

// EffectiveDeletionPolicy returns spec.deletionPolicy; unset means delete.
func (o *Queue) EffectiveDeletionPolicy() DeletionPolicy { return effective(o.Spec.DeletionPolicy) }

// EffectiveDeletionPolicy returns spec.deletionPolicy; unset means delete.
func (o *Exchange) EffectiveDeletionPolicy() DeletionPolicy {
	return effective(o.Spec.DeletionPolicy)
}

// EffectiveDeletionPolicy returns spec.deletionPolicy; unset means delete.
func (o *Binding) EffectiveDeletionPolicy() DeletionPolicy {
	return effective(o.Spec.DeletionPolicy)
}

// EffectiveDeletionPolicy returns spec.deletionPolicy; unset means delete.
func (o *Policy) EffectiveDeletionPolicy() DeletionPolicy { return effective(o.Spec.DeletionPolicy) }

// TopologyStatus returns the shared part of the status for writing.
func (o *Vhost) TopologyStatus() *TopologyStatus { return &o.Status }

// TopologyStatus returns the shared part of the status for writing.
func (o *User) TopologyStatus() *TopologyStatus { return &o.Status.TopologyStatus }

// TopologyStatus returns the shared part of the status for writing.
func (o *Permission) TopologyStatus() *TopologyStatus { return &o.Status }

// TopologyStatus returns the shared part of the status for writing.
func (o *Queue) TopologyStatus() *TopologyStatus { return &o.Status }

// TopologyStatus returns the shared part of the status for writing.
func (o *Exchange) TopologyStatus() *TopologyStatus { return &o.Status }

// TopologyStatus returns the shared part of the status for writing.
func (o *Binding) TopologyStatus() *TopologyStatus { return &o.Status }

// TopologyStatus returns the shared part of the status for writing.
func (o *Policy) TopologyStatus() *TopologyStatus { return &o.Status }

// ClusterReference returns spec.rabbitmqClusterReference.
func (o *TopicPermission) ClusterReference() RabbitmqClusterReference {
	return o.Spec.RabbitmqClusterReference
}

// EffectiveDeletionPolicy returns spec.deletionPolicy; unset means delete.
func (o *TopicPermission) EffectiveDeletionPolicy() DeletionPolicy {
	return effective(o.Spec.DeletionPolicy)
}

// TopologyStatus returns the shared part of the status for writing.
func (o *TopicPermission) TopologyStatus() *TopologyStatus { return &o.Status }

// ClusterReference returns spec.rabbitmqClusterReference.
func (o *OperatorPolicy) ClusterReference() RabbitmqClusterReference {
	return o.Spec.RabbitmqClusterReference
}

// EffectiveDeletionPolicy returns spec.deletionPolicy; unset means delete.
func (o *OperatorPolicy) EffectiveDeletionPolicy() DeletionPolicy {
	return effective(o.Spec.DeletionPolicy)
}

// TopologyStatus returns the shared part of the status for writing.
func (o *OperatorPolicy) TopologyStatus() *TopologyStatus { return &o.Status }

// ClusterReference returns spec.rabbitmqClusterReference.
func (o *Shovel) ClusterReference() RabbitmqClusterReference { return o.Spec.RabbitmqClusterReference }

// EffectiveDeletionPolicy returns spec.deletionPolicy; unset means delete.
func (o *Shovel) EffectiveDeletionPolicy() DeletionPolicy { return effective(o.Spec.DeletionPolicy) }

// TopologyStatus returns the shared part of the status for writing.
func (o *Shovel) TopologyStatus() *TopologyStatus { return &o.Status }

// ClusterReference returns spec.rabbitmqClusterReference.
func (o *Federation) ClusterReference() RabbitmqClusterReference {
	return o.Spec.RabbitmqClusterReference
}

// EffectiveDeletionPolicy returns spec.deletionPolicy; unset means delete.
func (o *Federation) EffectiveDeletionPolicy() DeletionPolicy {
	return effective(o.Spec.DeletionPolicy)
}

// TopologyStatus returns the shared part of the status for writing.
func (o *Federation) TopologyStatus() *TopologyStatus { return &o.Status }

// ClusterReference returns spec.rabbitmqClusterReference.
func (o *SuperStream) ClusterReference() RabbitmqClusterReference {
	return o.Spec.RabbitmqClusterReference
}

// EffectiveDeletionPolicy is retain: a SuperStream holds no finalizer; the
// garbage collector deletes the Exchange, Queue and Binding resources it
// owns, and their deletionPolicy decides what leaves the broker (upstream's
// behaviour).
func (o *SuperStream) EffectiveDeletionPolicy() DeletionPolicy { return DeletionPolicyRetain }

// TopologyStatus returns the shared part of the status for writing.
func (o *SuperStream) TopologyStatus() *TopologyStatus { return &o.Status.TopologyStatus }
