"""scrcpy 3.3.4's wire format, pure and I/O-free, for both ends: our scrcpy client and the
virtual phone's server emulation.

- `protocol`: the shared error, limits, fixed-point numbers and UTF-8 truncation;
- `control`: control messages (client → server) and their reader;
- `device_messages`: device messages (server → client) and their reader;
- `video`: the video socket (dummy byte, device name, codec meta, framed packets);
- `launch`: the `app_process` command line that starts the server, and its parser.

The module imports nothing else from `app`, so it can move to a leaf package shared with
the virtual phone without change. See docs/scrcpy.md.
"""

from .control import (
    COPY_KEY_COPY,
    COPY_KEY_CUT,
    COPY_KEY_NONE,
    POINTER_ID_GENERIC_FINGER,
    POINTER_ID_MOUSE,
    POINTER_ID_VIRTUAL_FINGER,
    SEQUENCE_INVALID,
    BackOrScreenOn,
    CollapsePanels,
    ControlMessage,
    ControlMessageReader,
    ExpandNotificationPanel,
    ExpandSettingsPanel,
    GetClipboard,
    InjectKeycode,
    InjectScrollEvent,
    InjectText,
    InjectTouchEvent,
    OpenHardKeyboardSettings,
    Position,
    ResetVideo,
    RotateDevice,
    SetClipboard,
    SetDisplayPower,
    StartApp,
    UhidCreate,
    UhidDestroy,
    UhidInput,
    read_control_message,
)
from .device_messages import (
    AckClipboard,
    DeviceClipboard,
    DeviceMessage,
    DeviceMessageReader,
    UhidOutput,
    read_device_message,
)
from .launch import (
    DEVICE_SERVER_PATH,
    NO_SCID,
    SERVER_CLASS,
    SERVER_SHA256,
    ServerArgumentError,
    ServerCommand,
    ServerOptions,
    generate_scid,
    is_server_command,
    parse_server_arguments,
    parse_server_command,
    server_arguments,
    server_command,
    socket_name,
)
from .protocol import (
    CLIPBOARD_TEXT_MAX_LENGTH,
    DEVICE_CLIPBOARD_TEXT_MAX_LENGTH,
    INJECT_TEXT_MAX_LENGTH,
    MESSAGE_MAX_SIZE,
    SERVER_VERSION,
    ProtocolError,
    StreamDisabled,
    split_utf8,
    truncate_utf8,
)
from .video import (
    CODEC_ID_AV1,
    CODEC_ID_H264,
    CODEC_ID_H265,
    DEVICE_NAME_FIELD_LENGTH,
    DUMMY_BYTE,
    PACKET_FLAG_CONFIG,
    PACKET_FLAG_KEY_FRAME,
    PACKET_HEADER_SIZE,
    DeviceMeta,
    PacketHeader,
    VideoCodecMeta,
    VideoPacket,
    VideoStreamReader,
    decode_device_name,
    decode_packet_header,
    encode_device_name,
    encode_packet_header,
    encode_stream_disabled,
    encode_stream_prologue,
)

__all__ = [name for name in dir() if not name.startswith("_") and name not in (
    "control", "device_messages", "launch", "protocol", "video")]
