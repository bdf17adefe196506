/// The region of a phone number from its E.164 country calling code (ITU-T E.164 assignments), by
/// longest-prefix match on its digits. Used by the per-country SMS rules (`allow`/`deny` lists of
/// ``RegionCode``s).
///
/// Choices, and what is *not* guaranteed:
/// - **NANP (+1)** is split by area code where it matters for fraud: the Caribbean and Pacific members
///   (+1 876 Jamaica, +1 809/829/849 Dominican Republic, +1 284 British Virgin Islands, … — classic
///   premium-rate destinations) and Canada's geographic area codes get their own region; every other +1
///   number is `US`. Area codes added after this table was written read as `US`.
/// - Shared calling codes map to the larger member: +7 is `RU` except +76/+77 (`KZ`); +44 is `GB` (the
///   Crown Dependencies too); +39 is `IT` (Vatican numbers under +39 06 698 too); +47 `NO`, +61 `AU`, +262
///   `RE`, +290 `SH`, +358 `FI`, +590 `GP`, +599 `CW`.
/// - Non-geographic codes (+800, +808, +870, +878, +881, +882, +883, +888, +979, +991) are
///   ``RegionCode/nonGeographic`` (`001`); unassigned ones ``RegionCode/unknown`` (`ZZ`).
/// - Numbering plans change; whether a number is in service, or ported, is not known here.
public enum CallingCodes {
    /// The region of `msisdn`.
    public static func region(of msisdn: MSISDN) -> RegionCode {
        let digits = Array(msisdn.digits.utf8)
        var length = min(digits.count, maximumPrefixLength)
        while length > 0 {
            if let region = table[String(decoding: digits[0..<length], as: UTF8.self)] { return region }
            length -= 1
        }
        return .unknown
    }

    private static let maximumPrefixLength = 4

    /// Prefix (digits after `+`) → region.
    private static let table: [String: RegionCode] = {
        var table: [String: RegionCode] = [:]
        for entry in assignments.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let parts = entry.split(separator: ":")
            guard parts.count == 2, let region = RegionCode(String(parts[1])) else {
                preconditionFailure("malformed calling-code entry \(entry)")
            }
            precondition(table.updateValue(region, forKey: String(parts[0])) == nil, "duplicate calling code \(parts[0])")
        }
        for code in nonGeographic.split(separator: " ") { table[String(code)] = .nonGeographic }
        for areaCode in canadianAreaCodes.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            precondition(table.updateValue(RegionCode("CA")!, forKey: "1" + areaCode) == nil, "duplicate area code \(areaCode)")
        }
        return table
    }()

    private static let nonGeographic = "800 808 870 878 881 882 883 888 979 991"

    /// Canada's geographic area codes (CNAC list, 2024).
    private static let canadianAreaCodes = """
        204 226 236 249 250 257 263 289 306 343 354 365 367 368 382 403 416 418 428 431 437 438 450 460 468 474
        506 514 519 548 579 581 584 587 604 613 639 647 672 683 705 709 742 753 778 780 782 807 819 825 867 873
        879 902 905 942
        """

    /// `prefix:region`, whitespace-separated.
    private static let assignments = """
        1:US 1242:BS 1246:BB 1264:AI 1268:AG 1284:VG 1340:VI 1345:KY 1441:BM 1473:GD 1649:TC 1658:JM 1664:MS
        1670:MP 1671:GU 1684:AS 1721:SX 1758:LC 1767:DM 1784:VC 1787:PR 1809:DO 1829:DO 1849:DO 1868:TT 1869:KN
        1876:JM 1939:PR
        7:RU 76:KZ 77:KZ
        20:EG 27:ZA 30:GR 31:NL 32:BE 33:FR 34:ES 36:HU 39:IT 40:RO 41:CH 43:AT 44:GB 45:DK 46:SE 47:NO 48:PL 49:DE
        51:PE 52:MX 53:CU 54:AR 55:BR 56:CL 57:CO 58:VE
        60:MY 61:AU 62:ID 63:PH 64:NZ 65:SG 66:TH
        81:JP 82:KR 84:VN 86:CN
        90:TR 91:IN 92:PK 93:AF 94:LK 95:MM 98:IR
        211:SS 212:MA 213:DZ 216:TN 218:LY 220:GM 221:SN 222:MR 223:ML 224:GN 225:CI 226:BF 227:NE 228:TG 229:BJ
        230:MU 231:LR 232:SL 233:GH 234:NG 235:TD 236:CF 237:CM 238:CV 239:ST 240:GQ 241:GA 242:CG 243:CD 244:AO
        245:GW 246:IO 247:AC 248:SC 249:SD 250:RW 251:ET 252:SO 253:DJ 254:KE 255:TZ 256:UG 257:BI 258:MZ 260:ZM
        261:MG 262:RE 263:ZW 264:NA 265:MW 266:LS 267:BW 268:SZ 269:KM 290:SH 291:ER 297:AW 298:FO 299:GL
        350:GI 351:PT 352:LU 353:IE 354:IS 355:AL 356:MT 357:CY 358:FI 359:BG 370:LT 371:LV 372:EE 373:MD 374:AM
        375:BY 376:AD 377:MC 378:SM 379:VA 380:UA 381:RS 382:ME 383:XK 385:HR 386:SI 387:BA 389:MK
        420:CZ 421:SK 423:LI
        500:FK 501:BZ 502:GT 503:SV 504:HN 505:NI 506:CR 507:PA 508:PM 509:HT 590:GP 591:BO 592:GY 593:EC 594:GF
        595:PY 596:MQ 597:SR 598:UY 599:CW
        670:TL 672:NF 673:BN 674:NR 675:PG 676:TO 677:SB 678:VU 679:FJ 680:PW 681:WF 682:CK 683:NU 685:WS 686:KI
        687:NC 688:TV 689:PF 690:TK 691:FM 692:MH
        850:KP 852:HK 853:MO 855:KH 856:LA 880:BD 886:TW
        960:MV 961:LB 962:JO 963:SY 964:IQ 965:KW 966:SA 967:YE 968:OM 970:PS 971:AE 972:IL 973:BH 974:QA 975:BT
        976:MN 977:NP 992:TJ 993:TM 994:AZ 995:GE 996:KG 998:UZ
        """
}
