import Testing
@testable import Doctor

@Suite struct AccountsTests {
    @Test func parsesPasswdAndGroupSkippingWhatIsNotARecord() {
        let passwd = """
            root:x:0:0:root:/root:/bin/bash
            # a comment
            blesensor:x:998:996:blesensor sensor bridge:/var/lib/blesensor:/usr/sbin/nologin
            broken:x:notanumber:1::/:
            +nis
            short:x
            :x:5:5::/:
            huge:x:99999999999:1::/:
            pi:x:1000:1000:,,,:/home/pi:/bin/bash
            """
        let group = "root:x:0:\ni2c:x:998:pi, blesensor ,\ngpio:x:997:\nblesensor:x:996:pi\nbad:x:-1:pi\ndialout:x:20"
        let accounts = AccountDatabase(passwd: passwd, group: group)
        #expect(accounts.users.map(\.name) == ["root", "blesensor", "pi"])
        #expect(accounts.groups.map(\.name) == ["root", "i2c", "gpio", "blesensor", "dialout"])
        #expect(accounts.group(named: "i2c")?.members == ["pi", "blesensor"])
        #expect(accounts.group(named: "dialout")?.members == [])
        let service = try! #require(accounts.user(named: "blesensor"))
        #expect(accounts.groupIDs(of: service) == [996, 998])
        #expect(accounts.userName(12345) == "12345")
    }

    @Test(arguments: ["", "\n\n", ":::::::", "a:b:c:d:e:f:g:h", String(repeating: "x:", count: 10_000), "\u{0}:\u{0}:1:1"])
    func anyTextParsesWithoutTrapping(text: String) {
        let accounts = AccountDatabase(passwd: text, group: text)
        #expect(accounts.users.allSatisfy { !$0.name.isEmpty })
    }
}
