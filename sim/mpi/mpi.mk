# mpi.mk - tpu-sim-mpi: tpu-sim over MPI ranks (sim/mpi/sim_mpi.h), built
# from sim/tpu_sim.c with -DTPU_SIM_MPI by Open MPI's mpicc.  Not part of
# `make all` (a machine without Open MPI still builds everything else);
# make test builds it (make deps installs Open MPI).
#   make mpi            build/bin/tpu-sim-mpi
MPICC   ?= mpicc
MPI_BIN := $(BIN)/tpu-sim-mpi

$(MPI_BIN): sim/tpu_sim.c sim/mpi/sim_mpi.c sim/mpi/sim_mpi.h $(LIB)
	@command -v $(MPICC) >/dev/null 2>&1 || { echo "tpu-sim-mpi needs Open MPI's mpicc: apt-get install -y libopenmpi-dev openmpi-bin (or make deps)" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -Isim/mpi -DTPU_SIM_MPI -o $@ sim/tpu_sim.c sim/mpi/sim_mpi.c $(LIB) $(LDLIBS)

.PHONY: mpi
mpi: $(MPI_BIN)
