import Testing
import TandemAPI
import TandemCore

@Suite("CM XML requests")
struct CMXMLDecodingTests {
    @Test("the spec's XML example with ALLOWEDCHANNELS decodes")
    func specExample() throws {
        let submission = try decodeXML("""
        <?xml version="1.0"?>
        <MESSAGES>
          <AUTHENTICATION>
            <PRODUCTTOKEN>00000000-0000-0000-0000-000000000000</PRODUCTTOKEN>
          </AUTHENTICATION>
          <MSG>
            <FROM>Company</FROM>
            <TO>00447911123456</TO>
            <APPKEY>00000000-0000-0000-0000-000000000000</APPKEY>
            <ALLOWEDCHANNELS>Push</ALLOWEDCHANNELS>  
            <BODY>This message will be delivered as a push message.</BODY>
          </MSG>
        </MESSAGES>
        """)
        #expect(submission.format == .xml)
        #expect(submission.productToken == productToken)
        let message = try #require(submission.onlyMessage)
        #expect(message.from.text == "Company")
        #expect(message.recipients.map(\.msisdn) == [MSISDN("+447911123456")])
        #expect(message.appKey == AppKey(productToken))
        #expect(message.allowedChannels == .only([.push]))
        #expect(message.body == "This message will be delivered as a push message.")
    }

    @Test("the spec's APPMESSAGETYPE example decodes")
    func specMessageType() throws {
        let message = try #require(try decodeXML("""
        <?xml version="1.0"?>
        <MESSAGES>
           <AUTHENTICATION>
             <PRODUCTTOKEN>00000000-0000-0000-0000-000000000000</PRODUCTTOKEN>
           </AUTHENTICATION>
           <MSG>
             <FROM>SenderName</FROM>
             <TO>00447911123456</TO>
             <APPKEY>00000000-0000-0000-0000-000000000000</APPKEY>
             <APPMESSAGETYPE>Critical</APPMESSAGETYPE>
             <BODY>This message will use the critical messaging type.</BODY>
           </MSG>
        </MESSAGES>
        """).onlyMessage)
        #expect(message.appMessageType == .critical)
    }

    @Test("every field, repeated TO, several MSG, CM's own CHANNEL element ignored")
    func everyField() throws {
        let submission = try decodeXML("""
        <MESSAGES><AUTHENTICATION><PRODUCTTOKEN> \(productToken) </PRODUCTTOKEN></AUTHENTICATION>
        <MSG><CHANNEL>SMS</CHANNEL><FROM> Shop </FROM><TO>0031612345678</TO><TO> +447911123456 </TO><TO>nope</TO>
          <BODY TYPE="PlainText">Code: 1234</BODY><REFERENCE>r-1</REFERENCE><CUSTOMGROUPING>a</CUSTOMGROUPING>
          <CUSTOMGROUPING2>b</CUSTOMGROUPING2><CUSTOMGROUPING3>c</CUSTOMGROUPING3>
          <MINIMUMNUMBEROFMESSAGEPARTS>1</MINIMUMNUMBEROFMESSAGEPARTS><MAXIMUMNUMBEROFMESSAGEPARTS>2</MAXIMUMNUMBEROFMESSAGEPARTS>
          <VALIDITY>2025-03-01 13:00:00 +01:00</VALIDITY><DCS>8</DCS><ALLOWEDCHANNELS>SMS</ALLOWEDCHANNELS>
          <ALLOWEDCHANNELS>push</ALLOWEDCHANNELS><APPKEY>\(appKeyText)</APPKEY><APPMESSAGETYPE>otp</APPMESSAGETYPE>
          <RICHCONTENT>{"ignored":true}</RICHCONTENT><FALLBACKFOR>r-0</FALLBACKFOR></MSG>
        <MSG><FROM>Other</FROM><TO>0031612345679</TO><BODY>second</BODY></MSG>
        </MESSAGES>
        """)
        #expect(submission.productToken == productToken)
        #expect(submission.messages.count == 2)
        let message = try submission.messages[0].result.get()
        #expect(message.from.text == "Shop")
        #expect(message.recipients.map(\.raw) == ["0031612345678", "+447911123456", "nope"])
        #expect(message.recipients.map { $0.result.failure?.code } == [nil, nil, .invalidMSISDN])
        #expect(message.body == "Code: 1234")
        #expect(message.bodyType == .plaintext)
        #expect(message.reference == "r-1")
        #expect([message.customGrouping, message.customGrouping2, message.customGrouping3] == ["a", "b", "c"])
        #expect(message.minimumParts == 1 && message.maximumParts == 2)
        #expect(message.validity == .absolute(Timestamp(milliseconds: 1_740_830_400_000)))
        #expect(message.dcs == 8)
        #expect(message.segmentation.alphabet == .ucs2)
        #expect(message.allowedChannels == .only([.sms, .push]))
        #expect(message.appKey?.text == appKeyText)
        #expect(message.appMessageType == .otp)
        #expect(message.richContent == nil)
        #expect(message.fallbackFor == "r-0")
        #expect(try submission.messages[1].result.get().body == "second")
        #expect(submission.messages[0].recipients == ["0031612345678", "+447911123456", "nope"])
    }

    @Test("element names match in any casing")
    func elementCasing() throws {
        let submission = try decodeXML("""
        <messages><Authentication><productToken>T</productToken></Authentication>
        <Msg><from>A</from><To>0031612345678</To><body>x</body><AppMessageType> DEFAULT </AppMessageType>
        <allowedChannels>sms, PUSH</allowedChannels><dcs>0</dcs></Msg></messages>
        """)
        #expect(submission.productToken == "T")
        let message = try #require(submission.onlyMessage)
        #expect(message.appMessageType == .default)
        #expect(message.allowedChannels == .only([.sms, .push]))
        #expect(message.dcs == 0)
    }

    @Test("CDATA, comments, predefined entities, character references and line ends in BODY")
    func textForms() throws {
        let request = "\n <?xml version=\"1.0\" encoding=\"utf-16\"?>\r\n<!-- a client comment -->\n<?app hint?>"
            + "<MESSAGES><MSG><FROM>A</FROM><TO>0031612345678</TO>"
            + "<BODY> &lt;b&gt; &amp; &quot;q&quot; &apos;a&apos; &#8364;&#x20AC;&#x1F600; <!-- c --><![CDATA[<raw> & ]]]>\r\nline\rend </BODY>"
            + "</MSG></MESSAGES>\n<!-- trailing comment -->\n"
        let message = try #require(try decodeXML(request).onlyMessage)
        #expect(message.body == " <b> & \"q\" 'a' €€😀 <raw> & ]\nline\nend ")
    }

    @Test("an empty element counts as absent; BODY whitespace is kept")
    func emptyElements() throws {
        let message = try #require(try decodeXML("""
        <MESSAGES><MSG><FROM>A</FROM><TO>0031612345678</TO><BODY>  two  spaces  </BODY><REFERENCE/><APPKEY></APPKEY>
        <ALLOWEDCHANNELS></ALLOWEDCHANNELS></MSG></MESSAGES>
        """).onlyMessage)
        #expect(message.body == "  two  spaces  ")
        #expect(try decodeXML("<MESSAGES><MSG><FROM>A</FROM><TO/><TO> </TO><BODY>x</BODY></MSG></MESSAGES>").onlyError
                == CMMessageError(code: .invalidTo, details: "to is required"))
        #expect(message.reference == nil && message.appKey == nil && message.allowedChannels == .all)
    }

    @Test("nested BODY and TO forms read like JSON objects")
    func nestedForms() throws {
        let message = try #require(try decodeXML("""
        <MESSAGES><MSG><FROM>A</FROM><TO><NUMBER>0031612345678</NUMBER></TO>
        <BODY><CONTENT>hello</CONTENT><TYPE>plaintext</TYPE></BODY></MSG></MESSAGES>
        """).onlyMessage)
        #expect(message.body == "hello" && message.bodyType == .plaintext)
        #expect(message.recipients.map(\.msisdn) == [MSISDN("+31612345678")])
    }

    @Test("per-message errors in XML", arguments: [
        ("<FROM>A</FROM><FROM>B</FROM><TO>0031612345678</TO><BODY>x</BODY>", CMErrorCode.invalidField, "from appears more than once"),
        ("<TO>0031612345678</TO><BODY>x</BODY>", .invalidFrom, "from is required"),
        ("<FROM>A</FROM><BODY>x</BODY>", .invalidTo, "to is required"),
        ("<FROM>A</FROM><TO>12</TO><BODY>x</BODY>", .ok, ""),
        ("<FROM>A</FROM><TO>0031612345678</TO>", .invalidBody, "body is required"),
        ("<FROM>A</FROM><TO>0031612345678</TO><BODY>x</BODY><DCS>7</DCS>", .invalidField, "dcs must be 0 or 8, got 7"),
        ("<FROM>A</FROM><TO>0031612345678</TO><BODY>x</BODY><FROM2/><FROM><X/></FROM>", .invalidField, "from appears more than once"),
        ("<FROM><X>A</X></FROM><TO>0031612345678</TO><BODY>x</BODY>", .invalidField, "from must be a string, got an object"),
        ("<FROM>A</FROM><TO>0031612345678</TO><BODY>x</BODY><ALLOWEDCHANNELS>Viber</ALLOWEDCHANNELS>", .channelNotSupported, "(Viber)"),
        ("<FROM>A</FROM><TO>0031612345678</TO><BODY>x</BODY><ALLOWEDCHANNELS>Fax</ALLOWEDCHANNELS>", .invalidField, "\"Fax\" is not a channel name"),
        ("<FROM>A</FROM><TO>0031612345678</TO><BODY>\(String(repeating: "a", count: 161))</BODY><MAXIMUMNUMBEROFMESSAGEPARTS>1</MAXIMUMNUMBEROFMESSAGEPARTS>",
         .invalidBody, "body needs 2 SMS parts; maximumNumberOfMessageParts is 1"),
    ])
    func messageErrors(fields: String, code: CMErrorCode, detail: String) throws {
        let submission = try decodeXML("<MESSAGES><MSG>\(fields)</MSG></MESSAGES>")
        if code == .ok {
            #expect(submission.onlyMessage?.recipients.first?.result.failure?.code == .invalidMSISDN)
        } else {
            #expect(submission.onlyError?.code == code)
            #expect(submission.onlyError?.details.contains(detail) == true, "\(String(describing: submission.onlyError))")
        }
    }
}
