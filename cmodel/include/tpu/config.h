/*
 * config.h - the machine configuration: array size, bandwidths, latencies.
 *
 * Keys are defined once in config.def.  Presets (tiny, v5e, ...) are the
 * files cmodel/configs/NAME.cfg, compiled into every tool.  The C model,
 * the assembler (--config) and the RTL parameter generator all read a
 * tpu_config; nothing else holds these numbers.
 */
#ifndef TPU_CONFIG_H
#define TPU_CONFIG_H

#include <stddef.h>
#include <stdint.h>

typedef struct tpu_config {
#define KEY_U64(n) uint64_t n;
#define KEY_F64(n) double n;
#define KEY_STR(n) char n[32];
#define KEY(n, type, def, lo, hi, doc) KEY_##type(n)
#include "../../config.def"        /* cmodel/config.def */
#undef KEY
#undef KEY_U64
#undef KEY_F64
#undef KEY_STR
} tpu_config;

/* A compiled-in preset: its name and the text of its .cfg file. */
typedef struct tpu_config_preset {
    const char *name;
    const char *text;
} tpu_config_preset;
extern const tpu_config_preset tpu_config_presets[];   /* ends with { 0, 0 } */

/* Defaults (config.def). */
void tpu_config_defaults(tpu_config *c);

/* Parse config text on top of *c.  `where` names the source in messages.
 * On error returns -1 with "where:line: error: ..." naming the key. */
int tpu_config_parse(tpu_config *c, const char *text, const char *where, char *err, size_t errlen);

/* Load a preset by name (no '/' and no ".cfg" ending), or else a file by
 * path, over the defaults, then validate; *c is unchanged on error. */
int tpu_config_load(tpu_config *c, const char *name_or_path, char *err, size_t errlen);

/* Apply one "key=value" override (tpu-sim --set). */
int tpu_config_set(tpu_config *c, const char *kv, char *err, size_t errlen);

/* Check every key's range and the cross-key rules (e.g. vmem_bytes a
 * multiple of 64, room for one weight tile); -1 with a message.  Tools call
 * it again after applying --set overrides (docs/config.md, "Checks"). */
int tpu_config_validate(const tpu_config *c, char *err, size_t errlen);

/* Print every key as `key = value` lines (round-trips through parse). */
void tpu_config_print(const tpu_config *c, char *buf, size_t len);

/* HBM and ICI bandwidth as bytes per cycle: num / den, reduced; exact when
 * both rates are whole numbers, else the closest fraction with den <= 10^6. */
void tpu_config_bytes_per_cycle(double bytes_per_s, double clock_hz, uint64_t *num, uint64_t *den);

#endif /* TPU_CONFIG_H */
