//! Turns the embedded OpenAPI document (`store-admin.yaml`, the workspace's
//! `openapi/store-admin.yaml`) into JSON at build time, read with the mock's own YAML options, so
//! that the mock parses JSON at every start instead of YAML (the CLI's `--sandbox` starts one per
//! command). A document that does not parse fails the build, naming the file.

#[path = "src/yaml.rs"]
mod yaml;

fn main() {
    println!("cargo::rerun-if-changed=store-admin.yaml");
    println!("cargo::rerun-if-changed=src/yaml.rs");
    let text = std::fs::read_to_string("store-admin.yaml").expect("read store-admin.yaml");
    let document = yaml::to_json(&text)
        .unwrap_or_else(|e| panic!("store-admin.yaml is not a YAML document: {e}"));
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"))
        .join("store-admin.json");
    std::fs::write(&out, serde_json::to_string(&document).expect("JSON"))
        .unwrap_or_else(|e| panic!("write {}: {e}", out.display()));
}
