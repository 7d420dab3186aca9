//! Just enough of a reader of textual LLVM IR for the harness: function
//! signatures (`define` / `declare` lines), attribute groups, and the text of
//! a function body (to clone it under another name).

use std::collections::BTreeMap;
use std::fmt;

/// An LLVM type as written in a signature.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum IrType {
    Void,
    Int(u32),
    Half,
    Float,
    Double,
    Ptr,
    Vector { lanes: u32, element: Box<IrType> },
    Array { length: u32, element: Box<IrType> },
    Struct(Vec<IrType>),
}

impl IrType {
    /// Bytes the value occupies in memory, without padding (`None` for `i1` vectors).
    pub fn byte_size(&self) -> Option<u32> {
        match self {
            IrType::Void => Some(0),
            IrType::Int(bits) if bits % 8 == 0 => Some(bits / 8),
            IrType::Int(1) => Some(1),
            IrType::Int(_) => None,
            IrType::Half => Some(2),
            IrType::Float => Some(4),
            IrType::Double | IrType::Ptr => Some(8),
            IrType::Vector { lanes, element } => match **element {
                IrType::Int(1) => None,
                ref element => Some(lanes * element.byte_size()?),
            },
            IrType::Array { length, element } => Some(length * element.byte_size()?),
            IrType::Struct(fields) => fields.iter().map(|field| field.byte_size()).sum(),
        }
    }

    pub fn is_scalar(&self) -> bool {
        matches!(self, IrType::Int(_) | IrType::Half | IrType::Float | IrType::Double | IrType::Ptr)
    }
}

impl fmt::Display for IrType {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IrType::Void => write!(formatter, "void"),
            IrType::Int(bits) => write!(formatter, "i{bits}"),
            IrType::Half => write!(formatter, "half"),
            IrType::Float => write!(formatter, "float"),
            IrType::Double => write!(formatter, "double"),
            IrType::Ptr => write!(formatter, "ptr"),
            IrType::Vector { lanes, element } => write!(formatter, "<{lanes} x {element}>"),
            IrType::Array { length, element } => write!(formatter, "[{length} x {element}]"),
            IrType::Struct(fields) => {
                write!(formatter, "{{ ")?;
                for (index, field) in fields.iter().enumerate() {
                    if index > 0 {
                        write!(formatter, ", ")?;
                    }
                    write!(formatter, "{field}")?;
                }
                write!(formatter, " }}")
            }
        }
    }
}

/// Parses a whole string as one type.
pub fn parse_type(text: &str) -> Result<IrType, String> {
    let mut parser = TypeParser { text: text.trim(), position: 0 };
    let parsed = parser.parse()?;
    parser.skip_spaces();
    if parser.position != parser.text.len() {
        return Err(format!("trailing text after type in `{text}`"));
    }
    Ok(parsed)
}

struct TypeParser<'a> {
    text: &'a str,
    position: usize,
}

impl TypeParser<'_> {
    fn skip_spaces(&mut self) {
        while self.text[self.position..].starts_with(' ') {
            self.position += 1;
        }
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_spaces();
        if self.text[self.position..].starts_with(token) {
            self.position += token.len();
            true
        } else {
            false
        }
    }

    fn number(&mut self) -> Result<u32, String> {
        self.skip_spaces();
        let start = self.position;
        while self.text[self.position..].starts_with(|c: char| c.is_ascii_digit()) {
            self.position += 1;
        }
        self.text[start..self.position]
            .parse()
            .map_err(|_| format!("expected a number in `{}`", self.text))
    }

    fn parse(&mut self) -> Result<IrType, String> {
        self.skip_spaces();
        if self.eat("<") {
            let lanes = self.number()?;
            if !self.eat("x") {
                return Err(format!("expected `x` in vector type `{}`", self.text));
            }
            let element = self.parse()?;
            if !self.eat(">") {
                return Err(format!("expected `>` in `{}`", self.text));
            }
            return Ok(IrType::Vector { lanes, element: Box::new(element) });
        }
        if self.eat("[") {
            let length = self.number()?;
            if !self.eat("x") {
                return Err(format!("expected `x` in array type `{}`", self.text));
            }
            let element = self.parse()?;
            if !self.eat("]") {
                return Err(format!("expected `]` in `{}`", self.text));
            }
            return Ok(IrType::Array { length, element: Box::new(element) });
        }
        if self.eat("{") {
            let mut fields = Vec::new();
            if self.eat("}") {
                return Ok(IrType::Struct(fields));
            }
            loop {
                fields.push(self.parse()?);
                if self.eat("}") {
                    return Ok(IrType::Struct(fields));
                }
                if !self.eat(",") {
                    return Err(format!("expected `,` or `}}` in `{}`", self.text));
                }
            }
        }
        for (keyword, parsed) in [
            ("void", IrType::Void),
            ("half", IrType::Half),
            ("float", IrType::Float),
            ("double", IrType::Double),
            ("ptr", IrType::Ptr),
        ] {
            if self.text[self.position..].starts_with(keyword) {
                let end = self.position + keyword.len();
                if !self.text[end..].starts_with(|c: char| c.is_ascii_alphanumeric()) {
                    self.position = end;
                    return Ok(parsed);
                }
            }
        }
        if self.eat("i") {
            let bits = self.number()?;
            return Ok(IrType::Int(bits));
        }
        Err(format!("unsupported type at `{}`", &self.text[self.position..]))
    }
}

/// Splits at top-level occurrences of `separator` (outside (), <>, [], {} and quotes).
pub fn split_top_level(text: &str, separator: char) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut in_quotes = false;
    let mut current = String::new();
    for character in text.chars() {
        match character {
            '"' => in_quotes = !in_quotes,
            '(' | '<' | '[' | '{' if !in_quotes => depth += 1,
            ')' | '>' | ']' | '}' if !in_quotes => depth -= 1,
            _ => {}
        }
        if character == separator && depth == 0 && !in_quotes {
            if !current.trim().is_empty() {
                parts.push(current.trim().to_owned());
            }
            current.clear();
        } else {
            current.push(character);
        }
    }
    if !current.trim().is_empty() {
        parts.push(current.trim().to_owned());
    }
    parts
}

/// One parameter of a signature: its type and attribute words.
#[derive(Clone, Debug)]
pub struct IrParam {
    pub ty: IrType,
    pub attributes: Vec<String>,
}

impl IrParam {
    /// The ABI-relevant attributes (`signext`, `zeroext`, `inreg`), to repeat at a call.
    pub fn abi_attributes(&self) -> String {
        abi_attributes(&self.attributes)
    }
}

fn abi_attributes(words: &[String]) -> String {
    words
        .iter()
        .filter(|word| matches!(word.as_str(), "signext" | "zeroext" | "inreg"))
        .map(|word| format!("{word} "))
        .collect()
}

/// A function signature read from a `define` line.
#[derive(Clone, Debug)]
pub struct IrFunction {
    pub name: String,
    pub return_type: IrType,
    pub return_attributes: Vec<String>,
    pub params: Vec<IrParam>,
    /// `#N` attribute group references after the parameter list.
    pub attribute_groups: Vec<u32>,
    /// Index of the `define` line in the module's lines.
    pub define_line: usize,
}

impl IrFunction {
    pub fn return_abi_attributes(&self) -> String {
        abi_attributes(&self.return_attributes)
    }
}

/// Parses the header of a `define` line (up to the opening `{`).
pub fn parse_define_line(line: &str, line_index: usize) -> Result<IrFunction, String> {
    let rest =
        line.strip_prefix("define ").ok_or_else(|| format!("not a define line: `{line}`"))?;
    let at = find_top_level(rest, '@').ok_or_else(|| format!("no function name in `{line}`"))?;
    let header_words = split_top_level(&rest[..at], ' ');
    let return_text = header_words.last().ok_or_else(|| format!("no return type in `{line}`"))?;
    let return_type = parse_type(return_text).map_err(|error| format!("{error} (in `{line}`)"))?;
    let return_attributes = header_words[..header_words.len() - 1].to_vec();

    let after_at = &rest[at + 1..];
    let (name, after_name) = if let Some(quoted) = after_at.strip_prefix('"') {
        let end = quoted.find('"').ok_or_else(|| format!("unterminated name in `{line}`"))?;
        (quoted[..end].to_owned(), &quoted[end + 1..])
    } else {
        let end = after_at
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$' | '-')))
            .unwrap_or(after_at.len());
        (after_at[..end].to_owned(), &after_at[end..])
    };
    let after_name =
        after_name.strip_prefix('(').ok_or_else(|| format!("no parameter list in `{line}`"))?;
    let close = matching_close(after_name)
        .ok_or_else(|| format!("unbalanced parameter list in `{line}`"))?;
    let mut params = Vec::new();
    for param_text in split_top_level(&after_name[..close], ',') {
        let words = split_top_level(&param_text, ' ');
        let ty = parse_type(&words[0])
            .map_err(|error| format!("{error} (parameter `{param_text}` in `{line}`)"))?;
        let attributes = words[1..].iter().filter(|word| !word.starts_with('%')).cloned().collect();
        params.push(IrParam { ty, attributes });
    }
    let attribute_groups = split_top_level(&after_name[close + 1..], ' ')
        .iter()
        .filter_map(|word| word.strip_prefix('#')?.parse().ok())
        .collect();
    Ok(IrFunction {
        name,
        return_type,
        return_attributes,
        params,
        attribute_groups,
        define_line: line_index,
    })
}

fn find_top_level(text: &str, wanted: char) -> Option<usize> {
    let mut depth = 0i32;
    let mut in_quotes = false;
    for (index, character) in text.char_indices() {
        match character {
            '"' => in_quotes = !in_quotes,
            '(' | '<' | '[' | '{' if !in_quotes => depth += 1,
            ')' | '>' | ']' | '}' if !in_quotes => depth -= 1,
            _ if character == wanted && depth == 0 && !in_quotes => return Some(index),
            _ => {}
        }
    }
    None
}

/// Index of the `)` closing a list whose `(` was just before `text`.
fn matching_close(text: &str) -> Option<usize> {
    let mut depth = 0i32;
    let mut in_quotes = false;
    for (index, character) in text.char_indices() {
        match character {
            '"' => in_quotes = !in_quotes,
            '(' if !in_quotes => depth += 1,
            ')' if !in_quotes => {
                if depth == 0 {
                    return Some(index);
                }
                depth -= 1;
            }
            _ => {}
        }
    }
    None
}

/// A textual module with its defined functions and attribute groups.
pub struct IrModule {
    pub lines: Vec<String>,
    pub functions: Vec<IrFunction>,
    /// `attributes #N = { ... }`: the text between the braces.
    pub attribute_groups: BTreeMap<u32, String>,
}

impl IrModule {
    pub fn parse(text: &str) -> Result<IrModule, String> {
        let lines: Vec<String> = text.lines().map(str::to_owned).collect();
        let mut functions = Vec::new();
        let mut attribute_groups = BTreeMap::new();
        for (index, line) in lines.iter().enumerate() {
            if line.starts_with("define ") {
                functions.push(parse_define_line(line, index)?);
            } else if let Some(rest) = line.strip_prefix("attributes #") {
                let (number, body) = rest
                    .split_once(" = { ")
                    .ok_or_else(|| format!("bad attribute group `{line}`"))?;
                let number: u32 =
                    number.parse().map_err(|_| format!("bad attribute group `{line}`"))?;
                attribute_groups.insert(number, body.trim_end_matches('}').trim().to_owned());
            }
        }
        Ok(IrModule { lines, functions, attribute_groups })
    }

    pub fn function(&self, name: &str) -> Option<&IrFunction> {
        self.functions.iter().find(|function| function.name == name)
    }

    /// The `"_ZGV..."` variant attributes on a function, in order.
    pub fn variant_attributes(&self, function: &IrFunction) -> Vec<String> {
        let mut names = Vec::new();
        for group in &function.attribute_groups {
            let Some(body) = self.attribute_groups.get(group) else { continue };
            let mut rest = body.as_str();
            while let Some(start) = rest.find("\"_ZGV") {
                let after = &rest[start + 1..];
                let end = after.find('"').unwrap_or(after.len());
                let name = &after[..end];
                let is_key_only = !after[end..].starts_with("\"=");
                if is_key_only {
                    names.push(name.to_owned());
                }
                rest = &after[end..];
            }
        }
        names
    }

    /// Value of the string attribute `key` in the function's attribute groups.
    pub fn string_attribute(&self, function: &IrFunction, key: &str) -> Option<String> {
        let pattern = format!("\"{key}\"=\"");
        for group in &function.attribute_groups {
            let body = self.attribute_groups.get(group)?;
            if let Some(start) = body.find(&pattern) {
                let value = &body[start + pattern.len()..];
                return Some(value[..value.find('"').unwrap_or(value.len())].to_owned());
            }
        }
        None
    }

    /// The lines of a function's definition, from `define` to the closing `}`.
    pub fn function_body_lines(&self, function: &IrFunction) -> &[String] {
        let start = function.define_line;
        let end = (start..self.lines.len())
            .find(|&index| self.lines[index] == "}")
            .unwrap_or(self.lines.len() - 1);
        &self.lines[start..=end]
    }

    pub fn next_free_attribute_group(&self) -> u32 {
        let mut highest = self.attribute_groups.keys().next_back().copied().unwrap_or(0);
        // call sites and functions may use numbers without a group line; be generous
        for line in &self.lines {
            for word in line.split(|c: char| !(c == '#' || c.is_ascii_digit())) {
                if let Some(number) =
                    word.strip_prefix('#').and_then(|digits| digits.parse::<u32>().ok())
                {
                    highest = highest.max(number);
                }
            }
        }
        highest + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_clang_define_lines_with_range_and_vector_types() {
        let line = "define dso_local range(i32 -2147483648, 2147483647) i32 @a(i32 noundef %0, ptr noundef readonly captures(none) %1, i16 noundef zeroext %2) local_unnamed_addr #3 {";
        let function = parse_define_line(line, 7).unwrap();
        assert_eq!(function.name, "a");
        assert_eq!(function.return_type, IrType::Int(32));
        assert_eq!(function.params.len(), 3);
        assert_eq!(function.params[1].ty, IrType::Ptr);
        assert!(function.params[2].attributes.contains(&"zeroext".to_owned()));
        assert_eq!(function.attribute_groups, vec![3]);
        let vector = parse_define_line(
            "define { <2 x double>, <2 x double> } @\"_ZGVbN4v_f\"(<4 x float> %x, <16 x i8> signext %y) #12 {",
            0,
        )
        .unwrap();
        assert_eq!(vector.name, "_ZGVbN4v_f");
        assert_eq!(vector.return_type.to_string(), "{ <2 x double>, <2 x double> }");
        assert_eq!(vector.return_type.byte_size(), Some(32));
        assert_eq!(vector.params[1].ty.to_string(), "<16 x i8>");
    }

    #[test]
    fn finds_variant_attributes_in_groups() {
        let module = IrModule::parse(
            "define float @f(float %0) #0 {\n  ret float %0\n}\nattributes #0 = { nounwind \"_ZGVbN4v_f\" \"_ZGVeN16v_f\" \"target-cpu\"=\"x86-64\" }\n",
        )
        .unwrap();
        let function = module.function("f").unwrap();
        assert_eq!(module.variant_attributes(function), vec!["_ZGVbN4v_f", "_ZGVeN16v_f"]);
        assert_eq!(module.string_attribute(function, "target-cpu").as_deref(), Some("x86-64"));
        assert_eq!(module.function_body_lines(function).len(), 3);
        assert_eq!(module.next_free_attribute_group(), 1);
    }
}
