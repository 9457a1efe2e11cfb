# Storage rules for the corpus jobs that mount a PersistentVolumeClaim or
# an Azure file share their command uses (see README.md). Each maps the
# claim (or share) name to a directory every node mounts; ${user} is the
# submitting user, so two users' jobs never see each other's data.

# kubeflow/examples object_detection: the pets dataset, read by ps, master
# and workers.
volume "pets-data-claim" {
  path = "/shared/datasets/pets"
}

# mnist_with_summaries (training-operator examples, both generations) and
# a copy of it: TensorBoard event files the workers write under /train.
volume "tfevent-volume" {
  path = "/shared/${user}/tfevent"
}

# Trained models and checkpoints written by the job.
volume "strategy-volume" {
  path = "/shared/${user}/models"
}

volume "pvc-mnist" {
  path = "/shared/${user}/mnist"
}

volume "xgboostlocal" {
  path = "/shared/${user}/xgboost"
}

# kubeslice training: a shared dataset and shared checkpoints.
volume "training-data-shared" {
  path      = "/shared/datasets/kubeslice"
  read_only = true
}

volume "training-checkpoints-shared" {
  path = "/shared/${user}/checkpoints"
}

# tf_job_tensorboard_azure: the Azure file share "data" of the volume
# "azurefile" (matched by the volume's name: the share name is generic).
volume "azurefile" {
  path = "/shared/${user}/tensorflow"
}
