//===- LspProtocolTest.cpp - The language server's text, URI and framing code ===//
#include "../../tool/LspDocuments.h"
#include "../../tool/LspProtocol.h"
#include "../../tool/LspTransport.h"
#include "gtest/gtest.h"
#include <thread>
#include <unistd.h>

using namespace dmalint::lsp;

namespace {

// "é" is 2 bytes, 1 UTF-16 unit; "😀" (U+1F600) is 4 bytes, 2 UTF-16 units,
// 1 UTF-32 unit.
const char *const Mixed = "a\xC3\xA9" "b\xF0\x9F\x98\x80" "c";

TEST(LspPositions, UnitsPerEncoding) {
  EXPECT_EQ(measureUnits(Mixed, PositionEncoding::UTF8), 9u);
  EXPECT_EQ(measureUnits(Mixed, PositionEncoding::UTF16), 6u);
  EXPECT_EQ(measureUnits(Mixed, PositionEncoding::UTF32), 5u);
}

TEST(LspPositions, BytesForUnitsStopsAtCodePoints) {
  // 'c' is the 6th UTF-16 unit (index 5), at byte 8.
  EXPECT_EQ(bytesForUnits(Mixed, 5, PositionEncoding::UTF16), 8u);
  EXPECT_EQ(bytesForUnits(Mixed, 4, PositionEncoding::UTF32), 8u);
  // Half of the surrogate pair: before the emoji.
  EXPECT_EQ(bytesForUnits(Mixed, 4, PositionEncoding::UTF16), 4u);
  // Past the end: the end.
  EXPECT_EQ(bytesForUnits(Mixed, 100, PositionEncoding::UTF16), 9u);
  EXPECT_EQ(bytesForUnits(Mixed, 100, PositionEncoding::UTF8), 9u);
}

TEST(LspPositions, InvalidUtf8CountsOneUnitPerByte) {
  const char *Bad = "x\xFF\xC3y"; // A stray byte and a truncated sequence.
  EXPECT_EQ(measureUnits(Bad, PositionEncoding::UTF16), 4u);
  EXPECT_EQ(bytesForUnits(Bad, 3, PositionEncoding::UTF16), 3u);
}

TEST(LspPositions, LineTableRoundTripsEveryLineEnding) {
  std::string Text = "one\ntwo\r\nthr\xC3\xA9" "e\rfour";
  LineTable Lines(Text);
  ASSERT_EQ(Lines.lineCount(), 4u);
  EXPECT_EQ(Lines.line(1), "two");
  EXPECT_EQ(Lines.line(2), "thr\xC3\xA9" "e");
  for (PositionEncoding E :
       {PositionEncoding::UTF8, PositionEncoding::UTF16, PositionEncoding::UTF32}) {
    for (size_t Offset : {size_t(0), size_t(4), size_t(9), size_t(14), size_t(16), Text.size()}) {
      Position P = Lines.position(Offset, E);
      EXPECT_EQ(Lines.offset(P, E), Offset) << encodingName(E).str() << " " << Offset;
    }
  }
  // "e" after "é" on line 2: character 4 in UTF-16, byte column 5.
  EXPECT_EQ(Lines.offset({2, 4}, PositionEncoding::UTF16), 9u + 5u);
  EXPECT_EQ(Lines.offset({2, 5}, PositionEncoding::UTF8), 9u + 5u);
}

TEST(LspPositions, OutOfRangePositionsClampAsTheSpecSays) {
  LineTable Lines("ab\ncd\n");
  EXPECT_EQ(Lines.offset({0, 99}, PositionEncoding::UTF16), 2u); // The line's end.
  EXPECT_EQ(Lines.offset({7, 0}, PositionEncoding::UTF16), 6u);  // The text's end.
  // An offset inside "\r\n" is the line's end.
  LineTable Crlf("ab\r\ncd");
  EXPECT_EQ(Crlf.position(3, PositionEncoding::UTF16), (Position{0, 2}));
}

TEST(LspUris, FileUrisRoundTrip) {
  std::string Path = "/tmp/a dir/k%1#\xC3\xA9.cc";
  std::string Uri = uriFromPath(Path);
  EXPECT_EQ(Uri, "file:///tmp/a%20dir/k%251%23%C3%A9.cc");
  llvm::Expected<std::string> Back = pathFromUri(Uri);
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(*Back, Path);
  llvm::Expected<std::string> Host = pathFromUri("file://localhost/x/y.cc");
  ASSERT_TRUE(bool(Host));
  EXPECT_EQ(*Host, "/x/y.cc");
}

TEST(LspUris, BadUrisAreErrorsThatSayWhy) {
  auto Why = [](llvm::StringRef Uri) {
    llvm::Expected<std::string> P = pathFromUri(Uri);
    EXPECT_FALSE(bool(P)) << Uri.str();
    return P ? std::string() : llvm::toString(P.takeError());
  };
  EXPECT_NE(Why("untitled:Untitled-1").find("only file: URIs"), std::string::npos);
  EXPECT_NE(Why("file:///x/%zz.cc").find("hexadecimal"), std::string::npos);
  EXPECT_NE(Why("file://server/share/x.cc").find("another host"), std::string::npos);
  EXPECT_NE(Why("file:relative/x.cc").find("not absolute"), std::string::npos);
  EXPECT_NE(Why("no-scheme").find("no scheme"), std::string::npos);
}

TEST(LspDocuments, IncrementalChangesApplyInOrder) {
  DocumentStore Store;
  ASSERT_FALSE(bool(Store.open("file:///k.cc", "cpp", 1, "int a;\n// \xF0\x9F\x98\x80 x\n")));
  // Replace "x" after the emoji (UTF-16 character 6 of line 1), then insert
  // at the start against the text the first change left.
  std::vector<TextChange> Changes(2);
  Changes[0].Replaced = Range{{1, 6}, {1, 7}};
  Changes[0].Text = "yz";
  Changes[1].Replaced = Range{{0, 0}, {0, 0}};
  Changes[1].Text = "// top\n";
  ASSERT_FALSE(bool(Store.change("file:///k.cc", 2, Changes, PositionEncoding::UTF16)));
  const Document *D = Store.find("file:///k.cc");
  ASSERT_NE(D, nullptr);
  EXPECT_EQ(D->Version, 2);
  EXPECT_EQ(D->Text, "// top\nint a;\n// \xF0\x9F\x98\x80 yz\n");
  EXPECT_EQ(D->Path, "/k.cc");
}

TEST(LspDocuments, WholeTextChangeReplacesEverything) {
  DocumentStore Store;
  ASSERT_FALSE(bool(Store.open("file:///k.cc", "cpp", 1, "old")));
  TextChange Whole;
  Whole.Text = "new text";
  ASSERT_FALSE(bool(Store.change("file:///k.cc", 5, {Whole}, PositionEncoding::UTF8)));
  EXPECT_EQ(Store.find("file:///k.cc")->Text, "new text");
}

TEST(LspDocuments, AReversedRangeChangesNothing) {
  DocumentStore Store;
  ASSERT_FALSE(bool(Store.open("file:///k.cc", "cpp", 1, "abc\ndef\n")));
  std::vector<TextChange> Changes(2);
  Changes[0].Replaced = Range{{0, 0}, {0, 1}};
  Changes[0].Text = "X";
  Changes[1].Replaced = Range{{1, 2}, {1, 1}};
  llvm::Error Err = Store.change("file:///k.cc", 2, Changes, PositionEncoding::UTF16);
  ASSERT_TRUE(bool(Err));
  EXPECT_NE(llvm::toString(std::move(Err)).find("ends before it starts"), std::string::npos);
  EXPECT_EQ(Store.find("file:///k.cc")->Text, "abc\ndef\n");
  EXPECT_EQ(Store.find("file:///k.cc")->Version, 1);
}

TEST(LspDocuments, ChangesToUnknownDocumentsAndBadUrisAreErrors) {
  DocumentStore Store;
  EXPECT_TRUE(bool(Store.change("file:///nope.cc", 2, {}, PositionEncoding::UTF16)));
  EXPECT_TRUE(bool(Store.open("untitled:1", "cpp", 1, "")));
  EXPECT_FALSE(Store.close("file:///nope.cc"));
}

/// A transport reading \p Input (written by another thread, then closed).
struct Piped {
  explicit Piped(std::string Input) {
    int In[2], Out[2];
    EXPECT_EQ(pipe(In), 0);
    EXPECT_EQ(pipe(Out), 0);
    Writer = std::thread([Fd = In[1], Input = std::move(Input)] {
      size_t Done = 0;
      while (Done < Input.size()) {
        ssize_t N = ::write(Fd, Input.data() + Done, Input.size() - Done);
        if (N <= 0)
          break;
        Done += N;
      }
      close(Fd);
    });
    ReadFd = In[0];
    OutRead = Out[0];
    OutWrite = Out[1];
    Wire = std::make_unique<Transport>(ReadFd, OutWrite, /*MaxMessageBytes=*/1000);
  }
  ~Piped() {
    Writer.join();
    close(ReadFd);
    close(OutRead);
    close(OutWrite);
  }
  std::thread Writer;
  int ReadFd, OutRead, OutWrite;
  std::unique_ptr<Transport> Wire;
};

std::string framed(const std::string &Body) {
  return "Content-Length: " + std::to_string(Body.size()) + "\r\n\r\n" + Body;
}

TEST(LspTransport, ReadsFramedMessagesWithAnyHeaderOrder) {
  Piped P(framed("{\"a\":1}") + "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" +
          "content-length: 2\r\n\r\n{}");
  std::string Body;
  ASSERT_EQ(P.Wire->read(Body), Transport::ReadResult::Message);
  EXPECT_EQ(Body, "{\"a\":1}");
  ASSERT_EQ(P.Wire->read(Body), Transport::ReadResult::Message);
  EXPECT_EQ(Body, "{}");
  EXPECT_EQ(P.Wire->read(Body), Transport::ReadResult::End);
}

TEST(LspTransport, BadFramesAreReportedAndReadingResumes) {
  Piped P("Content-Type: text\r\n\r\n{\"lost\":1}" + std::string("Content-Length: x\r\n\r\n{}") +
          framed("{\"ok\":1}") + "Content-Length: 5000\r\n\r\n" + std::string(5000, ' ') +
          framed("{\"ok\":2}") + "Content-Length: 10\r\n\r\n{\"cut");
  std::string Body;
  ASSERT_EQ(P.Wire->read(Body), Transport::ReadResult::BadFrame);
  EXPECT_NE(Body.find("no Content-Length"), std::string::npos) << Body;
  ASSERT_EQ(P.Wire->read(Body), Transport::ReadResult::BadFrame);
  EXPECT_NE(Body.find("not a number"), std::string::npos) << Body;
  ASSERT_EQ(P.Wire->read(Body), Transport::ReadResult::Message);
  EXPECT_EQ(Body, "{\"ok\":1}");
  ASSERT_EQ(P.Wire->read(Body), Transport::ReadResult::BadFrame);
  EXPECT_NE(Body.find("larger than the limit"), std::string::npos) << Body;
  ASSERT_EQ(P.Wire->read(Body), Transport::ReadResult::Message);
  EXPECT_EQ(Body, "{\"ok\":2}");
  ASSERT_EQ(P.Wire->read(Body), Transport::ReadResult::BadFrame);
  EXPECT_NE(Body.find("ended after 5 of the 10 bytes"), std::string::npos) << Body;
  EXPECT_EQ(P.Wire->read(Body), Transport::ReadResult::End);
}

TEST(LspTransport, WritesFramedJson) {
  Piped P("");
  ASSERT_TRUE(P.Wire->write(llvm::json::Object{{"x", "\xC3\xA9"}}));
  char Buffer[64] = {};
  ssize_t N = ::read(P.OutRead, Buffer, sizeof(Buffer) - 1);
  EXPECT_EQ(std::string(Buffer, N), "Content-Length: 10\r\n\r\n{\"x\":\"\xC3\xA9\"}");
}

TEST(LspProtocol, NonUtf8TextBecomesValidJson) {
  llvm::json::Value V = jsonText("ok \xFF");
  ASSERT_TRUE(V.getAsString().has_value());
  EXPECT_TRUE(llvm::json::isUTF8(*V.getAsString()));
}

} // namespace
