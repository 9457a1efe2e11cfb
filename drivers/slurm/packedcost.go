package slurm

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
)

// packedOverRequest warns when the packed layout asks Slurm for more than
// the job's roles need: every slot is sized by the largest role in each
// dimension (packedSlot), so a role smaller than another holds the
// difference idle on its nodes for the whole job. The warning names the
// amount and the ways out: the het layout (one component per role, sized
// by it), or role rules that make the roles equal.
func packedOverRequest(job *jobs.Job, rs []res, onePerNode bool) hcl.Diagnostics {
	slot := packedSlot(rs)
	slotMem := slot.MemPerCPU * int64(slot.CPUs)
	var needCPU, needGPU, askCPU, askGPU int
	var needMem, askMem int64
	var smaller []string
	for k, r := range job.Roles {
		n := r.Instances
		needCPU += n * rs[k].CPUs
		needGPU += n * rs[k].GPUs
		needMem += int64(n) * rs[k].MemPerCPU * int64(rs[k].CPUs)
		askCPU += n * slot.CPUs
		askGPU += n * slot.GPUs
		askMem += int64(n) * slotMem
		if n > 0 && (rs[k].CPUs < slot.CPUs || rs[k].GPUs < slot.GPUs || rs[k].MemPerCPU*int64(rs[k].CPUs) < slotMem) {
			smaller = append(smaller, fmt.Sprintf("%s (%d × %s)", r.Name, n, resText(rs[k].CPUs, rs[k].MemPerCPU*int64(rs[k].CPUs), rs[k].GPUs)))
		}
	}
	if len(smaller) == 0 {
		return nil
	}
	var extra []string
	if d := askCPU - needCPU; d > 0 {
		extra = append(extra, fmt.Sprintf("%d CPUs", d))
	}
	if d := askMem - needMem; d > 0 {
		extra = append(extra, mib(d))
	}
	if d := askGPU - needGPU; d > 0 {
		extra = append(extra, fmt.Sprintf("%d GPUs", d))
	}
	how := "Use the het layout (slurm { layout = \"het\" } in jobshift.hcl), which sizes one allocation component per role, or make the roles' requests equal with role rules"
	if onePerNode {
		how = "A LeinaoPAI job needs one task per node, which only the packed layout guarantees; make the roles' requests equal with role rules"
	}
	return hcl.Diagnostics{jobs.Warnf(jobPos(job), "Packed layout over-requests",
		"The packed layout sizes every task slot by the largest role (%s per task), so the job asks Slurm for %s where its roles need %s: %s more, held idle by %s. %s (a role \"NAME\" block setting cpu, memory_mib and shm_mib).",
		resText(slot.CPUs, slotMem, slot.GPUs), resText(askCPU, askMem, askGPU), resText(needCPU, needMem, needGPU),
		strings.Join(extra, ", "), strings.Join(smaller, ", "), how)}
}

func resText(cpus int, mem int64, gpus int) string {
	s := fmt.Sprintf("%d CPUs, %s", cpus, mib(mem))
	if gpus > 0 {
		s += fmt.Sprintf(", %d GPUs", gpus)
	}
	return s
}

// mib writes a memory amount as Slurm users read it: GiB when whole.
func mib(m int64) string {
	if m%1024 == 0 {
		return fmt.Sprintf("%d GiB", m/1024)
	}
	return fmt.Sprintf("%d MiB", m)
}
