/// Names of the main stations of Europe by their UIC code (country code and five digits, the
/// codes of UIC leaflet 920-2 that tickets carry), and of railways by their RICS code.
///
/// A small table kept by hand in this file (Apache-2.0, like the project): station codes are
/// facts the railways publish in their timetable data. A name printed on the ticket (U_TLAY,
/// FCB `…NameUTF8`) always wins over this table.
public enum RailStations {
    public static func name(_ code: String) -> String? {
        guard let number = Int(code) else { return nil }
        return stations[number]
    }

    public static func railwayName(_ code: String) -> String? {
        guard let number = Int(code) else { return nil }
        return railways[number]
    }

    static let stations: [Int: String] = [
        // Germany (80)
        8_000_105: "Frankfurt (Main) Hbf", 8_011_160: "Berlin Hbf", 8_000_261: "München Hbf", 8_002_549: "Hamburg Hbf",
        8_000_207: "Köln Hbf", 8_000_096: "Stuttgart Hbf", 8_000_085: "Düsseldorf Hbf", 8_000_152: "Hannover Hbf",
        8_010_205: "Leipzig Hbf", 8_000_284: "Nürnberg Hbf", 8_000_191: "Karlsruhe Hbf", 8_000_244: "Mannheim Hbf",
        8_010_085: "Dresden Hbf", 8_000_050: "Bremen Hbf", 8_000_080: "Dortmund Hbf", 8_000_098: "Essen Hbf",
        // Switzerland (85)
        8_503_000: "Zürich HB", 8_507_000: "Bern", 8_500_010: "Basel SBB", 8_501_008: "Genève", 8_505_000: "Luzern",
        // Austria (81)
        8_103_000: "Wien Hbf", 8_100_002: "Salzburg Hbf", 8_100_108: "Innsbruck Hbf",
        // France (87)
        8_727_100: "Paris Nord", 8_768_600: "Paris Gare de Lyon", 8_721_202: "Strasbourg", 8_772_319: "Lyon Part-Dieu",
        // Netherlands (84), Belgium (88)
        8_400_058: "Amsterdam Centraal", 8_400_530: "Rotterdam Centraal", 8_400_621: "Utrecht Centraal",
        8_814_001: "Bruxelles-Midi / Brussel-Zuid", 8_821_006: "Antwerpen-Centraal",
    ]

    static let railways: [Int: String] = [
        1080: "DB Fernverkehr", 1181: "ÖBB", 1185: "SBB", 1187: "SNCF", 1184: "NS", 1088: "SNCB", 1083: "Trenitalia", 1071: "Renfe",
    ]
}
