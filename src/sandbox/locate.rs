//! Finds the sandbox executable: `CODEMODE_NATIVE_SANDBOX` if set, else next to the
//! loaded addon (outside an Electron asar archive), else next to the running program or
//! one folder up (cargo's test layout).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub const FILE_NAME: &str = "codemode-sandbox";

/// The executable's path, looked up once.
pub fn executable() -> Result<PathBuf, String> {
    static FOUND: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    FOUND.get_or_init(find).clone()
}

fn find() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("CODEMODE_NATIVE_SANDBOX") {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!(
                "the code mode sandbox executable was not found: CODEMODE_NATIVE_SANDBOX names {}, which is not a file; point it at the codemode-sandbox executable, unset it, or use isolation: \"thread\"",
                path.display()
            ))
        };
    }
    let mut candidates = Vec::new();
    if let Some(folder) = addon_folder() {
        candidates.push(unpacked(&folder).join(FILE_NAME));
    }
    if let Ok(program) = std::env::current_exe() {
        for folder in program.ancestors().skip(1).take(2) {
            candidates.push(folder.join(FILE_NAME));
        }
    }
    candidates.iter().find(|path| path.is_file()).cloned().ok_or_else(|| {
        format!(
            "the code mode sandbox executable ({FILE_NAME}) was not found next to the addon; reinstall the package, set CODEMODE_NATIVE_SANDBOX, or use isolation: \"thread\""
        )
    })
}

/// Electron serves files inside `app.asar` from memory; executables live in
/// `app.asar.unpacked` beside it.
fn unpacked(folder: &Path) -> PathBuf {
    let text = folder.to_string_lossy();
    match text.find("app.asar") {
        Some(at) if !text[at..].starts_with("app.asar.unpacked") => PathBuf::from(format!(
            "{}app.asar.unpacked{}",
            &text[..at],
            &text[at + 8..]
        )),
        _ => folder.to_path_buf(),
    }
}

/// The folder of the shared object this code was loaded from (the `.node` file).
fn addon_folder() -> Option<PathBuf> {
    #[cfg(unix)]
    {
        let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
        let here = addon_folder as *const ();
        // SAFETY: `here` is an address inside this object; `info` is a valid out-pointer.
        if unsafe { libc::dladdr(here.cast(), &mut info) } == 0 || info.dli_fname.is_null() {
            return None;
        }
        // SAFETY: dladdr returned a NUL-terminated path that lives as long as the object.
        let name = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) };
        let path = PathBuf::from(name.to_string_lossy().into_owned());
        path.parent().map(Path::to_path_buf)
    }
    #[cfg(not(unix))]
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_asar_path_points_into_the_unpacked_folder() {
        let inside = Path::new(
            "/Applications/X.app/Contents/Resources/app.asar/node_modules/codemode-native",
        );
        assert_eq!(
            unpacked(inside),
            PathBuf::from("/Applications/X.app/Contents/Resources/app.asar.unpacked/node_modules/codemode-native")
        );
        let already = Path::new("/r/app.asar.unpacked/m");
        assert_eq!(unpacked(already), already.to_path_buf());
        assert_eq!(
            unpacked(Path::new("/usr/lib/m")),
            PathBuf::from("/usr/lib/m")
        );
    }
}
