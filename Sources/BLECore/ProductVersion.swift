/// blesensor's release version: `--version` of both executables prints it, and cross/build-deb.sh
/// reads it from the built daemon for the package version, so the two cannot disagree.
public enum ProductVersion {
    /// Debian-compatible (digits and dots): it becomes the upstream part of the package version.
    public static let current = "0.1.0"
}
