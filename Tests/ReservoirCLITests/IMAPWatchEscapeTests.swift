import Foundation
import Glibc
import PostgresTestSupport
import TestRequirements
import Testing

extension ProcessSuites.IMAPWatchTests {
    /// A TLS server (python3's ssl) that logs anyone in and answers EXAMINE with a tagged NO
    /// (`no`) or an untagged BYE (`bye`) whose text is the bytes of its fourth argument, in hex.
    static let refusingServer = #"""
        import socket, ssl, sys
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(sys.argv[1], sys.argv[2])
        text = bytes.fromhex(sys.argv[4])
        s = socket.socket()
        s.bind(('127.0.0.1', 0))
        s.listen(1)
        print(s.getsockname()[1], flush=True)
        c, _ = s.accept()
        t = ctx.wrap_socket(c, server_side=True)
        t.sendall(b'* OK [CAPABILITY IMAP4rev1 SASL-IR AUTH=PLAIN] ready\r\n')
        f = t.makefile('rb')
        while True:
            line = f.readline()
            if not line:
                break
            tag, _, rest = line.decode().partition(' ')
            word = rest.split(' ')[0].strip().upper()
            if word == 'CAPABILITY':
                t.sendall(b'* CAPABILITY IMAP4rev1 SASL-IR AUTH=PLAIN\r\n' + tag.encode() + b' OK done\r\n')
            elif word == 'EXAMINE':
                if sys.argv[3] == 'no':
                    t.sendall(tag.encode() + b' NO ' + text + b'\r\n')
                else:
                    t.sendall(b'* BYE ' + text + b'\r\n')
                    break
            else:
                t.sendall(tag.encode() + b' OK done\r\n')
        t.close()
        """#

    /// Bytes a server puts in its words to steer the terminal: erase the screen (ESC [2J), an
    /// OSC 8 hyperlink (ESC ] 8 ;; URL ESC \), CSI as the C1 control U+009B in UTF-8 and as the
    /// raw byte 0x9B, a carriage return to overwrite the line, backspaces.
    static let hostileText: [UInt8] =
        Array("\u{1B}[2Jwatch: ".utf8) + Array("\u{1B}]8;;https://evil.example/\u{1B}\\trusted\u{1B}]8;;\u{1B}\\".utf8)
        + [0xC2, 0x9B] + Array("31m red ".utf8) + [0x9B] + Array("32m green\rOVERWRITTEN\u{8}\u{8}".utf8)

    /// `reservoir watch --once` against ``refusingServer`` in `mode` with `text`: its status and
    /// its standard error as raw bytes.
    static func refusedWatch(_ mode: String, _ text: [UInt8]) throws -> (status: Int32, stderr: Data) {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        try Self.makeCertificates(in: tmp.path)
        let netrc = tmp.path + "/netrc"
        try "machine 127.0.0.1 login jane password s3cret\n".write(toFile: netrc, atomically: true, encoding: .utf8)
        chmod(netrc, 0o600)
        let hex = text.map { String(format: "%02x", $0) }.joined()
        let (server, port) = try Self.pythonServer(Self.refusingServer, [tmp.path + "/server.pem", tmp.path + "/server.key", mode, hex])
        defer {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        let r = try ChildProcess.capture([
            "/usr/bin/env", "XDG_STATE_HOME=\(tmp.path)/state", ReservoirBinary.executable.path, "watch", "--once",
            "imaps://jane@127.0.0.1:\(port)/INBOX", "--netrc", netrc, "--ca-file", tmp.path + "/ca.pem", "--imap-timeout", "10",
            "--store", "sqlite:\(tmp.path)/s.sqlite3", "--no-calendar",
        ])
        return (r.status, r.stderr)
    }

    @Test(
        "a server's NO or BYE text with ESC [2J, an OSC 8 link, C1 CSI (UTF-8 and a raw 0x9B), CR and BS reaches the terminal escaped, never raw; a plain refusal shows as it is",
        .enabled(if: Requirement.met(FileManager.default.isExecutableFile(atPath: python)), "needs python3"), arguments: ["no", "bye"])
    func serverWordsEscaped(_ mode: String) throws {
        let hostile = try Self.refusedWatch(mode, Self.hostileText)
        #expect(hostile.status == (mode == "no" ? 66 : 75), "\(String(decoding: hostile.stderr, as: UTF8.self))")
        let bytes = [UInt8](hostile.stderr)
        let text = String(decoding: hostile.stderr, as: UTF8.self)
        for (byte, name) in [(UInt8(0x1B), "ESC"), (0x9B, "the raw byte 0x9B"), (0x0D, "CR"), (0x08, "BS")] {
            #expect(!bytes.contains(byte), "\(name) reached the terminal: \(text.debugDescription)")
        }
        #expect(!zip(bytes, bytes.dropFirst()).contains { $0 == 0xC2 && $1 == 0x9B }, "U+009B reached the terminal: \(text.debugDescription)")
        // Shown, visibly: what the server wrote is there for a person to read.
        for shown in ["\\x1B[2Jwatch: ", "\\x1B]8;;https://evil.example/\\x1B\\trusted", "\\x9B31m red ", "32m green\\x0DOVERWRITTEN\\x08\\x08"] {
            #expect(text.contains(shown), "\(shown) not in \(text.debugDescription)")
        }

        let plain = try Self.refusedWatch(mode, Array("[NONEXISTENT] no such mailbox here".utf8))
        let plainText = String(decoding: plain.stderr, as: UTF8.self)
        let expected =
            mode == "no"
            ? "imap-mailbox-refused: EXAMINE INBOX: [NONEXISTENT] no such mailbox here\n"
            : "imap-unreachable: the server closed the session: [NONEXISTENT] no such mailbox here"
        #expect(plainText.contains(expected), "\(plainText.debugDescription)")
        #expect(plain.status == hostile.status)
    }
}
