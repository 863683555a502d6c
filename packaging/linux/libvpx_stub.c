/*
 * A stand-in for libvpx (BSD) in the Linux bundle, to keep the bundle within its 200 MB budget
 * (docs/licences.md, "Size"). The app never uses libvpx: it decodes H.264 and AV1, and FFmpeg
 * decodes VP8 and VP9 itself. libavcodec still links libvpx's wrappers, so it does not load
 * without a library of that name; this one exports the symbols libavcodec imports and makes
 * every libvpx encoder and decoder fail to open ("libvpx is not in this bundle").
 *
 * Built by build.spec:  cc -shared -fPIC -Wl,-soname,<libvpx soname> -o <libvpx soname> libvpx_stub.c
 * Written for this project; no line comes from libvpx.
 */
#include <stddef.h>

#define NOT_HERE "libvpx is not in this bundle"
#define VPX_CODEC_ERROR 1

const char *vpx_codec_version_str(void) { return "none (stand-in)"; }
int vpx_codec_version(void) { return 0; }
const char *vpx_codec_build_config(void) { return ""; }
const char *vpx_codec_err_to_string(int err) { (void)err; return NOT_HERE; }
const char *vpx_codec_error(void *ctx) { (void)ctx; return NOT_HERE; }
const char *vpx_codec_error_detail(void *ctx) { (void)ctx; return NULL; }

/* No interfaces: every init below fails, so FFmpeg reports that the codec could not be opened. */
void *vpx_codec_vp8_cx(void) { return NULL; }
void *vpx_codec_vp8_dx(void) { return NULL; }
void *vpx_codec_vp9_cx(void) { return NULL; }
void *vpx_codec_vp9_dx(void) { return NULL; }
long vpx_codec_get_caps(void *iface) { (void)iface; return 0; }

int vpx_codec_dec_init_ver(void *ctx, void *iface, const void *cfg, long flags, int ver) {
    (void)ctx; (void)iface; (void)cfg; (void)flags; (void)ver; return VPX_CODEC_ERROR;
}
int vpx_codec_enc_init_ver(void *ctx, void *iface, const void *cfg, long flags, int ver) {
    (void)ctx; (void)iface; (void)cfg; (void)flags; (void)ver; return VPX_CODEC_ERROR;
}
int vpx_codec_enc_config_default(void *iface, void *cfg, unsigned int usage) {
    (void)iface; (void)cfg; (void)usage; return VPX_CODEC_ERROR;
}
int vpx_codec_enc_config_set(void *ctx, const void *cfg) { (void)ctx; (void)cfg; return VPX_CODEC_ERROR; }
int vpx_codec_destroy(void *ctx) { (void)ctx; return 0; }
int vpx_codec_control_(void *ctx, int id, ...) { (void)ctx; (void)id; return VPX_CODEC_ERROR; }
int vpx_codec_decode(void *ctx, const unsigned char *data, unsigned int size, void *user, long deadline) {
    (void)ctx; (void)data; (void)size; (void)user; (void)deadline; return VPX_CODEC_ERROR;
}
void *vpx_codec_get_frame(void *ctx, void **iter) { (void)ctx; (void)iter; return NULL; }
int vpx_codec_encode(void *ctx, const void *img, long long pts, unsigned long duration, long flags,
                     unsigned long deadline) {
    (void)ctx; (void)img; (void)pts; (void)duration; (void)flags; (void)deadline; return VPX_CODEC_ERROR;
}
const void *vpx_codec_get_cx_data(void *ctx, void **iter) { (void)ctx; (void)iter; return NULL; }
int vpx_codec_set_frame_buffer_functions(void *ctx, void *get, void *release, void *priv) {
    (void)ctx; (void)get; (void)release; (void)priv; return VPX_CODEC_ERROR;
}
void *vpx_img_wrap(void *img, int fmt, unsigned int w, unsigned int h, unsigned int align, unsigned char *data) {
    (void)img; (void)fmt; (void)w; (void)h; (void)align; (void)data; return NULL;
}
