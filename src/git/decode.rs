//! Commit-message decoding: the bytes of a message as text, by its `encoding` header.

/// A commit message as text: UTF-8 when it is; else decoded by its `encoding` header
/// when that is Latin-1 or Windows-1252; else lossily (U+FFFD for each bad byte).
pub(crate) fn decode_message(bytes: &[u8], encoding: Option<&str>) -> String {
    if let Ok(s) = std::str::from_utf8(bytes) {
        return s.to_string();
    }
    let enc = encoding.unwrap_or("").trim().to_ascii_lowercase();
    match enc.as_str() {
        "iso-8859-1" | "iso8859-1" | "latin1" | "latin-1" | "l1" => {
            bytes.iter().map(|&b| char::from(b)).collect()
        }
        "windows-1252" | "cp1252" => bytes.iter().map(|&b| cp1252(b)).collect(),
        _ => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// One Windows-1252 byte as a char (0x80–0x9F differ from Latin-1).
fn cp1252(b: u8) -> char {
    const HIGH: [char; 32] = [
        '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8d}', 'Ž',
        '\u{8f}', '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9d}',
        'ž', 'Ÿ',
    ];
    match b {
        0x80..=0x9f => HIGH[usize::from(b - 0x80)],
        _ => char::from(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_decode_by_their_encoding_header() {
        assert_eq!(decode_message("café".as_bytes(), None), "café");
        assert_eq!(decode_message(b"caf\xe9", Some("ISO-8859-1")), "café");
        assert_eq!(
            decode_message(b"\x93q\x94 \x80", Some("windows-1252")),
            "“q” €"
        );
        assert_eq!(decode_message(b"caf\xe9", None), "caf\u{fffd}");
        assert_eq!(decode_message(b"caf\xe9", Some("EUC-JP")), "caf\u{fffd}");
    }
}
