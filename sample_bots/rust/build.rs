//! Generates the hearts.v1 gRPC server code at build time from the kit's copy
//! of the protocol (proto/, kept identical to the repository's by
//! scripts/sync_kit_protos.py), so the build needs nothing outside this folder.
use std::{env, error::Error, path::PathBuf};

const PROTO_ROOT: &str = "proto";
const PROTO_FILE: &str = "proto/hearts/v1/hearts.proto";

fn main() -> Result<(), Box<dyn Error>> {
    // Use the protoc binary shipped in the protoc-bin-vendored crate, so no
    // system protoc is needed.
    let protoc = protoc_bin_vendored::protoc_bin_path()?;
    // SAFETY: a build script is single-threaded; nothing else reads the env now.
    unsafe { env::set_var("PROTOC", protoc) };

    let out_dir = PathBuf::from(env::var("OUT_DIR")?);
    tonic_prost_build::configure()
        .build_client(false)
        .build_server(true)
        // Also emit the descriptor set, for the reflection service.
        .file_descriptor_set_path(out_dir.join("hearts_descriptor.bin"))
        .compile_protos(&[PROTO_FILE], &[PROTO_ROOT])?;

    println!("cargo:rerun-if-changed={PROTO_FILE}");
    Ok(())
}
