/* What the migrate CUDA backend's two files share: the 2D kernels (extrap_cuda.cu, which also
 * owns the context's state and the plan's upload) and the 3D ones (extrap3_cuda.cu). */
#ifndef TSR_MIGRATE_EXTRAP_CUDA_CUH
#define TSR_MIGRATE_EXTRAP_CUDA_CUH

#include "migrate/extrap_hd.h"

#include "cuda/cuda_internal.cuh"

extern "C" {
#include "migrate/migrate_backends.h"
}

/* What every kernel reads besides the fields (device pointers). Rows of slow and taper are
 * plan->ncols long (a 2D row, a 3D slice). */
struct dev_plan {
    tsr__mig_step st; /* st.table: the device's table; st.ny, st.xscale_y as the plan's */
    const float *slow, *taper, *wdz;
    int32_t nz, nfreq;
};

/* What the backend keeps on a context between shots and calls. */
struct mig_cuda_state {
    tsr__cuda_buffer table, slow, taper, wdz; /* the plan's (tag: plan id) */
    tsr__cuda_buffer field[4];                /* 2D: S, R and their next rows; modelling: q */
    tsr__cuda_buffer image;                   /* image then illum, nz * ncols doubles each */
    tsr__cuda_buffer refl, sdepth;            /* modelling */
    tsr__cuda_buffer work3;                   /* 3D: a frequency chunk's fields */
    tsr__cuda_buffer pin[2];                  /* page-locked: the images' way back, used by turns */
    int pin_last;                             /* the one the last image start copies into */
    uint64_t chunk_plan;                      /* 3D: the plan id chunk was made for ... */
    int chunk_model;                          /* ... and whether for modelling */
    int32_t chunk;                            /* frequencies per 3D chunk */
    tsr__cuda_timer timer;
    int have_timer;
    double loop_ms; /* the last call's depth loop per shot, device time; -1 before one */
};

/* The context's state, made on first use. */
tsr_status tsr__migcu_state(tsr_ctx *ctx, mig_cuda_state **out);
/* n bytes of pageable host data into b (reserved to fit) on the context's stream; the host data
 * may be freed on return (the runtime has staged it). */
tsr_status tsr__migcu_upload(tsr_ctx *ctx, tsr__cuda_buffer *b, const void *host, size_t n);
/* What every shot starts with: the method checked, the context's state, the plan on the device
 * and the kernels' view of it in *dp. */
tsr_status tsr__migcu_shot_begin(tsr_ctx *ctx, const tsr__migrate_plan *plan, mig_cuda_state **s,
                                 dev_plan *dp);

/* Frees every device buffer of s (after waiting for the context's stream); the plan's tables are
 * uploaded again by the next tsr__migcu_shot_begin. */
void tsr__migcu_release(tsr_ctx *ctx, mig_cuda_state *s);

/* 3D (plan->ny >= 2): image_start's and model_shot's contracts (migrate_backends.h); image_start
 * takes count 1 (migrate.c runs 3D one shot at a time) and pairs with the 2D file's
 * image_finish. extrap3_cuda.cu. */
tsr_status tsr__migcu3_image_start(tsr_ctx *ctx, const tsr__migrate_plan *plan, int32_t count,
                                   const tsr__cf *src, const tsr__cf *rec);
tsr_status tsr__migcu3_model_shot(tsr_ctx *ctx, const tsr__migrate_plan *plan, const tsr__cf *src,
                                  const float *refl, tsr__cf *rec,
                                  const tsr__mig_progress *progress);

#endif
