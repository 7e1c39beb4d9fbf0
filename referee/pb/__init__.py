"""Generated protocol stubs (hearts.v1); regenerate with scripts/gen_proto.py."""
