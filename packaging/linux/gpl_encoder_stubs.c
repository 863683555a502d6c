/*
 * Stand-ins for libx264 and libx265 (both GPL) in the Linux bundle; see docs/licences.md.
 *
 * PyAV's wheel links FFmpeg's libavcodec against libx264 and libx265, so libavcodec does not
 * load without libraries of those names. The bundle ships these stand-ins under the same names
 * instead: they hold no x264 or x265 code, export the symbols libavcodec imports, and make
 * every attempt to open either encoder fail cleanly (FFmpeg then reports "could not open
 * encoder"), while every decoder and the other encoders work as before.
 *
 * Built by build.spec as two shared libraries, one per soname:
 *     cc -shared -fPIC -DSTUB_X264 -Wl,-soname,<x264 soname> -o <x264 soname> gpl_encoder_stubs.c
 *     cc -shared -fPIC -DSTUB_X265 -Wl,-soname,<x265 soname> -o <x265 soname> gpl_encoder_stubs.c
 * Written for this project; no line comes from x264 or x265.
 */
#include <stddef.h>

#ifdef STUB_X264
/* The entries of x264_levels are read until one whose first byte (level_idc) is 0: an empty
   table is one such entry, larger than any real entry so every field reads as 0. */
const unsigned char x264_levels[256] = {0};

void x264_param_default(void *param) { (void)param; }
int x264_param_default_preset(void *param, const char *preset, const char *tune) {
    (void)param; (void)preset; (void)tune; return -1;
}
void x264_param_apply_fastfirstpass(void *param) { (void)param; }
int x264_param_apply_profile(void *param, const char *profile) { (void)param; (void)profile; return -1; }
int x264_param_parse(void *param, const char *name, const char *value) {
    (void)param; (void)name; (void)value; return -1;
}
void x264_param_cleanup(void *param) { (void)param; }
void x264_picture_init(void *picture) { (void)picture; }
void *x264_encoder_open_165(void *param) { (void)param; return NULL; }
int x264_encoder_reconfig(void *encoder, void *param) { (void)encoder; (void)param; return -1; }
int x264_encoder_headers(void *encoder, void **nals, int *count) {
    (void)encoder; (void)nals; if (count) *count = 0; return -1;
}
int x264_encoder_encode(void *encoder, void **nals, int *count, void *in, void *out) {
    (void)encoder; (void)nals; (void)in; (void)out; if (count) *count = 0; return -1;
}
void x264_encoder_close(void *encoder) { (void)encoder; }
int x264_encoder_delayed_frames(void *encoder) { (void)encoder; return 0; }
int x264_encoder_maximum_delayed_frames(void *encoder) { (void)encoder; return 0; }
#endif

#ifdef STUB_X265
/* libavcodec asks for x265's function table by bit depth; NULL means "this build has none". */
const void *x265_api_get_216(int bit_depth) { (void)bit_depth; return NULL; }
#endif
