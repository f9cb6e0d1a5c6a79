package gen

// Word tables for brand names, product lines and descriptions.

var (
	brandHeads = []string{"Nord", "Acme", "Vel", "Stein", "Lumi", "Kor", "Alta", "Bren", "Cor", "Dal",
		"Fjell", "Gran", "Hal", "Iso", "Jor", "Kal", "Lind", "Mar", "Oak", "Pol", "Quill", "Ros", "Sol",
		"Tor", "Ulv", "Var", "Wes", "Zen", "Bright", "Blue", "Silver", "True", "Swift", "Ever", "Hart"}
	brandTails = []string{"", "vik", "tek", "ora", "line", "berg", "haus", "works", "mark", "ton", "ex",
		"io", "ar", "wood", "field", "stone", "craft", "ly", "den", "sen", "gate"}
	brandWords = []string{"Tools", "Home", "Outdoor", "Living", "Audio", "Labs", "& Co", "Sports",
		"Design", "Electric", "Gear"}

	lineNames = []string{"Aero", "Trail", "Urban", "Nova", "Apex", "Terra", "Vento", "Polar", "Summit",
		"Flux", "Orbit", "Zen", "Atlas", "Pulse", "Drift", "Core", "Vista", "Ridge", "Echo", "Luma",
		"Strata", "Halo", "Nimbus", "Forge", "Tempo", "Breeze", "Comet", "Nomad", "Solis", "Vertex"}
	lineTiers = []string{"", "", "", "Pro", "Plus", "Max", "Lite", "Sport", "Compact", "Elite", "Air", "X"}

	docKinds = []string{"manuals", "datasheets", "safety"}
)

// Sentence templates, filled by descBuilder.add. Verbs: %[1]s product name, %[2]s brand, %[3]s noun
// (lower case, with article), %[4]s a use, %[5]s the range (template name,
// lower case), %[6]s another use.
var (
	introSentences = []string{
		"The %[1]s from %[2]s is %[3]s made for %[4]s.",
		"Meet the %[1]s: %[2]s designed this model for %[4]s.",
		"With the %[1]s, %[2]s offers %[3]s that is built for %[4]s.",
		"%[2]s created the %[1]s for %[4]s, and it shows in every detail.",
		"Looking for %[3]s for %[4]s? The %[1]s by %[2]s is a strong candidate.",
	}
	brandSentences = []string{
		"%[2]s has spent years refining its %[5]s, and this model brings that experience together.",
		"As with every product from %[2]s, each unit is checked before it leaves the warehouse.",
		"%[2]s backs the %[1]s with responsive customer service and readily available spare parts.",
		"Among the %[5]s from %[2]s, this one is a favourite with returning customers.",
	}
	fillerSentences = []string{
		"Every unit is inspected before shipping and arrives ready to use.",
		"It is a dependable choice for anyone who needs %[3]s for %[4]s.",
		"Careful workmanship and well-chosen materials make it a companion for years to come.",
		"Please check the technical data sheet for detailed specifications and care advice.",
		"Customers appreciate the straightforward handling and the clean, timeless look.",
		"Thanks to its thoughtful design, the %[1]s suits beginners as well as experienced users.",
		"Whether for %[4]s or %[6]s, it adapts to what you need.",
		"All materials were selected with durability and ease of maintenance in mind.",
		"Should you ever need help, the %[2]s service team is happy to assist.",
		"The packaging is kept to a minimum and can be recycled with household paper.",
		"Compared with its predecessor, this model has been refined in many small details.",
		"It is easy to set up, easy to use and easy to keep in good shape.",
		"Reviewers regularly highlight the solid build quality at a fair price.",
		"Small details, such as the carefully finished edges, make everyday use more pleasant.",
	}

	// Attribute sentences: %[1]s attribute name (lower case), %[2]s value,
	// %[3]s closing clause.
	textSentences = []string{
		"Its %[1]s is %[2]s, %[3]s.",
		"When it comes to the %[1]s, this model relies on %[2]s, %[3]s.",
		"The %[1]s (%[2]s) was chosen deliberately, %[3]s.",
	}
	textClauses = []string{
		"which keeps it versatile",
		"a choice that has proven itself in everyday use",
		"which fits well with the rest of the design",
		"a detail that owners appreciate",
		"which makes it easy to combine with what you already have",
	}
	// %[1]s attribute name (lower case), %[2]s value with unit, %[3]s clause,
	// %[4]s attribute name with article.
	numberSentences = []string{
		"With %[4]s of %[2]s, it %[3]s.",
		"The %[1]s comes in at %[2]s, so it %[3]s.",
		"At %[2]s, the %[1]s means it %[3]s.",
	}
	numberClauses = []string{
		"sits right where most buyers want it",
		"stands out in its class",
		"strikes a sensible balance",
		"leaves little to be desired",
		"holds its own against pricier models",
	}
)
