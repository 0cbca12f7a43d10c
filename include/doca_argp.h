/* Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file doca_argp.h
 * @brief Argument parser: program flags from the command line or a JSON file.
 *
 * Legal call order (one parser per process):
 *
 *     doca_argp_init(name, &config)
 *       -> doca_argp_param_create / _set_* / doca_argp_register_param   (per flag)
 *       -> doca_argp_register_validation_callback, _version_callback     (optional)
 *       -> doca_argp_start(argc, argv)   parse; param callbacks run, then validation
 *       -> ... program ...
 *       -> doca_argp_destroy()
 *
 * Built-in flags: -h/--help (usage, exit 0), -v/--version (version callback, or the odma
 * version; exit 0), -l/--log-level N (global lower log limit), --sdk-log-level N (global
 * SDK log limit), -j/--json FILE (read flags from FILE).
 * A JSON file holds objects keyed by long names: "doca_general_flags" (log-level,
 * sdk-log-level) and "doca_program_flags" (the program's params). Flags given on the
 * command line as well override the file. Its "doca_dpdk_flags" object (devices, core-mask,
 * core-list, flags: NVIDIA's *_params.json) gives EAL flags to the DPDK program; a program
 * without one skips it.
 * A program that set a callback with doca_argp_set_dpdk_program() is run as DOCA runs one:
 * "program [EAL flags] -- [DOCA flags] [program flags]"; the EAL flags go to the callback.
 * Any other program's flags end at "--", and arguments after it are refused.
 * Errors are logged once, followed by the usage text on stderr; the parser never exits
 * except for --help and --version.
 */
#ifndef DOCA_ARGP_H_
#define DOCA_ARGP_H_

#include <stdarg.h>
#include <doca_compat.h>
#include <doca_error.h>
#include <doca_log.h>
/* DOCA 3.3's argp header brings the device API with it; programs rely on that (e.g. sizes). */
#include <doca_dev.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One program flag (opaque). */
struct doca_argp_param;

/** Receives a parsed value (char*, int*, bool* or json_object*) and the program config. */
typedef doca_error_t (*doca_argp_param_cb_t)(void *param, void *config);
/** Checks the whole program config after parsing. */
typedef doca_error_t (*doca_argp_validation_cb_t)(void *config);
/** Receives the EAL flags, those before "--" (argv[0] is the program name). */
typedef doca_error_t (*doca_argp_dpdk_cb_t)(int argc, char **argv);
/** Receives the parser's own messages instead of the SDK log. */
typedef void (*doca_argp_logger_cb_t)(enum doca_log_level level, const char *format, va_list args);

/** Type of a flag's value. */
enum doca_argp_type {
	DOCA_ARGP_TYPE_UNKNOWN = 0, /**< not set (registration fails) */
	DOCA_ARGP_TYPE_STRING,	    /**< text; callback gets char* */
	DOCA_ARGP_TYPE_INT,	    /**< decimal (010 is ten) or 0x hex int; callback gets int* */
	DOCA_ARGP_TYPE_BOOLEAN,	    /**< flag without value (JSON: true/false); callback gets bool* */
	DOCA_ARGP_TYPE_JSON_OBJ,    /**< JSON value; callback gets json_object* */
};

/**
 * @brief Starts the parser.
 * @param [in] program_name  shown in usage (NULL: taken from argv[0] at start).
 * @param [in] program_config  passed to every callback; may be NULL for a program whose
 *                             callbacks need no config (doca_argp_init(NULL, NULL) is what
 *                             DOCA's flag-less samples call, and it succeeds).
 * @return DOCA_SUCCESS; DOCA_ERROR_BAD_STATE when already initialised; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_argp_init(const char *program_name, void *program_config);

/**
 * @brief Releases the parser and every registered param; doca_argp_init() may be called again.
 * @return DOCA_SUCCESS; DOCA_ERROR_BAD_STATE when not initialised.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_argp_destroy(void);

/**
 * @brief Creates an empty param.
 * @param [out] param  the new param (untouched on failure).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE on NULL; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_argp_param_create(struct doca_argp_param **param);

/**
 * @brief Frees a param that was never registered.
 * @param [in] param  the param.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE on NULL.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_argp_param_destroy(struct doca_argp_param *param);

/** @brief Sets the short name, used as "-name" (copied). @param [in] param the param. @param [in] name the name without dash. */
DOCA_EXPERIMENTAL void doca_argp_param_set_short_name(struct doca_argp_param *param, const char *name);
/** @brief Sets the long name, used as "--name" and as JSON key (copied). @param [in] param the param. @param [in] name the name without dashes. */
DOCA_EXPERIMENTAL void doca_argp_param_set_long_name(struct doca_argp_param *param, const char *name);
/** @brief Sets the value placeholder shown in usage, e.g. "<path>" (copied). @param [in] param the param. @param [in] arguments the text. */
DOCA_EXPERIMENTAL void doca_argp_param_set_arguments(struct doca_argp_param *param, const char *arguments);
/** @brief Sets the description shown in usage (copied). @param [in] param the param. @param [in] description the text. */
DOCA_EXPERIMENTAL void doca_argp_param_set_description(struct doca_argp_param *param, const char *description);
/** @brief Sets the callback that receives the value (required). @param [in] param the param. @param [in] callback the callback. */
DOCA_EXPERIMENTAL void doca_argp_param_set_callback(struct doca_argp_param *param, doca_argp_param_cb_t callback);
/** @brief Sets the value type (required). @param [in] param the param. @param [in] type the type. */
DOCA_EXPERIMENTAL void doca_argp_param_set_type(struct doca_argp_param *param, enum doca_argp_type type);
/** @brief Makes the flag mandatory: parsing fails when it is missing. @param [in] param the param. */
DOCA_EXPERIMENTAL void doca_argp_param_set_mandatory(struct doca_argp_param *param);
/** @brief Accepts the flag on the command line only (rejected in a JSON file). @param [in] param the param. */
DOCA_EXPERIMENTAL void doca_argp_param_set_cli_only(struct doca_argp_param *param);
/** @brief Lets the flag appear several times; the callback runs once per value. @param [in] param the param. */
DOCA_EXPERIMENTAL void doca_argp_param_set_multiplicity(struct doca_argp_param *param);
/** @brief Marks the flag singular (meaningful for commands only; recorded). @param [in] param the param. */
DOCA_EXPERIMENTAL void doca_argp_param_set_singular(struct doca_argp_param *param);
/** @brief Marks the flag inherited by sub-commands (meaningful for commands only; recorded). @param [in] param the param. */
DOCA_EXPERIMENTAL void doca_argp_param_set_inherited(struct doca_argp_param *param);
/** @brief Hides the flag from usage (it is still parsed). @param [in] param the param. */
DOCA_EXPERIMENTAL void doca_argp_param_set_hidden(struct doca_argp_param *param);

/**
 * @brief Registers a param; the parser owns it afterwards in every case (also on failure).
 * @param [in] param  the param.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE on NULL or a name already in use (also by a
 *         built-in flag); DOCA_ERROR_INITIALIZATION when the param has no name, no callback
 *         or no type; DOCA_ERROR_BAD_STATE before doca_argp_init() or after doca_argp_start().
 */
DOCA_EXPERIMENTAL
doca_error_t doca_argp_register_param(struct doca_argp_param *param);

/**
 * @brief Registers the callback run with the program config after all values were parsed.
 * @param [in] callback  the callback.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE on NULL; DOCA_ERROR_BAD_STATE when not initialised.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_argp_register_validation_callback(doca_argp_validation_cb_t callback);

/**
 * @brief Registers the callback run for -v/--version (called with NULL and the config; it
 *        normally prints versions and exits).
 * @param [in] callback  the callback.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE on NULL; DOCA_ERROR_BAD_STATE when not initialised.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_argp_register_version_callback(doca_argp_param_cb_t callback);

/**
 * @brief Parses the command line (and a JSON file given with -j), runs the callbacks.
 *
 * With a DPDK program set (doca_argp_set_dpdk_program()), the arguments before "--" are EAL
 * flags, handed to it, and those after "--" the DOCA and program flags, in DOCA's order
 * ("program -a 03:00.0 -c 0x1 -- -l 60"). A line without "--" is all EAL flags, as in DOCA 1,
 * unless it starts with -j/--json FILE: then it is all DOCA flags and the EAL flags come from
 * the file. Without a DPDK program, all arguments up to "--" are flags.
 * @param [in] argc  argument count.
 * @param [in] argv  arguments, argv[0] being the program.
 * @return DOCA_SUCCESS; DOCA_ERROR_NOT_SUPPORTED for an unknown flag (or a JSON key), or for
 *         arguments after "--" without a DPDK program;
 *         DOCA_ERROR_INVALID_VALUE for a missing mandatory flag, a missing or malformed value,
 *         a repeated flag without multiplicity, a cli_only flag in JSON or bad JSON;
 *         DOCA_ERROR_IO_FAILED when the JSON file cannot be read; DOCA_ERROR_BAD_STATE when not
 *         initialised or already started; DOCA_ERROR_NO_MEMORY; or the first error a callback
 *         returned.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_argp_start(int argc, char **argv);

/** @brief Prints the usage text (built-in and visible program flags) to stdout. */
DOCA_EXPERIMENTAL
void doca_argp_usage(void);

/**
 * @brief Routes DPDK (EAL) flags to @p callback (DPDK-style programs): its argv is the program
 *        name, the flags of the JSON file's "doca_dpdk_flags" (each device as -a NAME, an sf as
 *        auxiliary:mlx5_core.sf.ID, "hws": true adding ,dv_flow_en=2; core-mask as -c 0xMASK;
 *        core-list as -l LIST; the words of "flags"), then the command line's EAL flags: those
 *        before "--" (DOCA's "program [EAL flags] -- [DOCA flags] [program flags]"; see
 *        doca_argp_start() for a line without "--").
 * @param [in] callback  the callback (NULL turns it off).
 */
DOCA_EXPERIMENTAL
void doca_argp_set_dpdk_program(doca_argp_dpdk_cb_t callback);

/**
 * @brief Returns the program log level (-l), or the global lower log limit when not given.
 * @param [out] log_level  the level.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE on NULL.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_argp_get_log_level(int *log_level);

/**
 * @brief Returns the SDK log level (--sdk-log-level), or the global SDK limit when not given.
 * @param [out] log_level  the level.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE on NULL.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_argp_get_sdk_log_level(int *log_level);

/**
 * @brief Sends the parser's own messages to @p callback instead of the SDK log.
 * @param [in] callback  the callback.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE on NULL.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_argp_register_logger_callback(doca_argp_logger_cb_t callback);

/** @brief Sends the parser's messages to the SDK log again. */
DOCA_EXPERIMENTAL
void doca_argp_disable_logger_callback(void);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_ARGP_H_ */
