package contract

import "strconv"

// leinao is the LeinaoPAI dialect (spec/pai.md §3.4, seed 000): every
// container had three ports, 10001–10003 inside, mapped to random host
// ports; the topology carries the host ports under LeinaoLabel in that
// order. Role names are used as given.
//
// LeinaoPAI was OpenPAI of the YARN era, so its tasks had that era's
// variables too (its own example ppchallenge2018-deploy reads
// $PAI_USER_NAME): the contract is the pai-yarn names (yarnVars, leinao
// mode) followed by LeinaoPAI's own, and where both define a name
// LeinaoPAI's value wins. Only PAI_TASK_ROLE_<r>_HOST_LIST differs between
// the two: LeinaoPAI's is IPs only (mnist_replica.py matches entries equal
// to an IP), YARN's ip:httpPort needs an http port LeinaoPAI containers did
// not have. The others both define (PAI_CURRENT_CONTAINER_IP,
// PAI_CURRENT_TASK_ROLE_NAME, PAI_CURRENT_TASK_ROLE_TASK_COUNT,
// PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX, PAI_TASK_INDEX) have equal
// values; they keep YARN's position.
func (b *builder) leinao() {
	b.yarnVars(true)
	j, k := b.job, b.self
	r := j.Roles[k]
	b.set("PAI_CURRENT_CONTAINER_IP", addr(k, self))
	b.setLit("PAI_CURRENT_TASK_ROLE_NAME", r.Name)
	b.setLit("PAI_CURRENT_TASK_ROLE_TASK_COUNT", strconv.Itoa(r.Instances))
	// Not in the README table, but the seed's own job passes
	// --task_index=$PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX.
	b.set("PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX", index(0))
	b.set("PAI_TASK_INDEX", index(0))
	for n, in := range LeinaoPorts {
		b.set("PAI_PORT_MAP_"+strconv.Itoa(in), port(k, self, LeinaoLabel, n))
	}
	for rk, rr := range j.Roles {
		for i := range rr.Instances {
			b.set("PAI_PORT_LIST_"+rr.Name+"_"+strconv.Itoa(i), cat(addr(rk, i), lit(","), ports(rk, i, LeinaoLabel)))
		}
		b.set("PAI_TASK_ROLE_"+rr.Name+"_HOST_LIST", join(rr.Instances, ",", func(i int) expr { return addr(rk, i) }))
	}
}
