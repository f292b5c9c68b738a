"""The hand-written conversation of ``bench/data/agent_convo.json``: sessions, then the questions.

Written for this project (Apache-2.0, like the repository): two friends,
Ada (the memory's owner: "I" in the questions) and Ben, chatting over a
year. Each session is ``(date, start time, text)``; each line of the text is
one turn, ``A:`` for Ada and ``B:`` for Ben, and a turn that answers a
question ends with ``{label}`` (one or more labels, space-separated).
``bench/make_agent_convo.py`` turns this into the JSON the bench reads.

A question is ``(kind, question, evidence labels, as_of)``: ``as_of`` is the
day a relative time word ("last month", "now") is meant against, ``None``
when the question has none.
"""

from __future__ import annotations

SESSIONS: list[tuple[str, str, str]] = [
    ("2023-01-08", "19:04", """
A: Happy new year Ben! Did you survive the holidays?
B: Barely. Sam's family came for four days and the cats hid under the bed the whole time.
A: Poor things. How are Miso and Tofu doing now?
B: Back to normal. Miso is the bold ginger one, Tofu is the shy grey one, and they both sleep on my guitar case. {cats2}
A: Ha, of course they do. I have a resolution for once: I signed up for a pottery class. {pottery_start}
B: No way. Where?
A: A little studio called Clayworks in Chapel Allerton, every Tuesday evening for ten weeks. {clayworks}
B: I expect a mug by spring.
A: You'll get a wonky bowl and you'll like it. How's the band?
B: The Late Trains are rehearsing again. We're trying to book a gig for April. {band}
A: I still can't believe you play bass in a band called The Late Trains. {band_bass}
B: Says the person who analyses bus timetables for a living.
A: Fair. Northline Buses keeps me busy, we're redesigning all the routes in east Leeds this year. {northline}
B: Is that the job where you spent a week counting passengers on the number 56?
A: That was 2021 and I still have nightmares.
B: And how is Pepper?
A: Pepper ate a whole sock on New Year's Day. The vet said to wait and see, and it came out the next morning. {sock}
B: Classic beagle. {beagle}
A: She is completely unrepentant. Anyway, it's good to talk to you properly.
B: Same. Let's do this every couple of weeks.
"""),
    ("2023-01-29", "10:12", """
B: So? How was the first pottery class?
A: Humbling. I made a bowl that leans to the left like it's tired. {first_bowl}
B: I love it already.
A: The teacher, Marguerite, says everybody's first bowl leans. She's been throwing pots for thirty years. {marguerite}
B: Did you get clay everywhere?
A: In my hair, on my glasses, somehow inside my sock.
B: Speaking of socks, how's Pepper's stomach?
A: Totally fine, she's back to stealing gloves instead.
B: Good news from here too: the gig is booked. The Fleece, Saturday the 15th of April. {gig_booked}
A: The Fleece in Bristol? That's a proper venue!
B: It's a Tuesday-crowd kind of slot but yes, a proper stage.
A: I'm coming. I'll take the train down.
B: You don't have to come all the way from Leeds. {leeds}
A: I want to. Also I've decided I need a holiday in spring. I'm thinking Lisbon in May. {lisbon_idea}
B: Lisbon is great, I went with Sam in 2019. Eat all the custard tarts. {lisbon_2019}
A: That's the plan. Pastéis de nata for breakfast, lunch and dinner.
B: And take the old yellow tram up the hill, it's touristy but worth it. {tram_tip}
A: Noted. Any other tips?
B: Go to Sintra for a day, the palaces look like someone iced a cake. {sintra_tip}
A: I'll put it on the list.
"""),
    ("2023-02-19", "20:31", """
A: Sorry I went quiet last week, my mum had her knee operation on Tuesday. {mum_knee}
B: Oh no, how is she?
A: Sore and grumpy but it went well. It's a full knee replacement, so she'll need weeks of physio. {knee_replacement}
B: Tell her I said hello. Is your dad looking after her?
A: Dad and me in shifts. I've been driving over to Harrogate after work. {harrogate}
B: That's a lot on top of your job.
A: It's fine, Northline let me work from home on Thursdays and Fridays for a month.
B: That's decent of them.
A: On a happier note, I booked the Lisbon flights! 12th to 19th of May, £184 return from Leeds Bradford. {lisbon_flights}
B: Bargain. Where are you staying?
A: A small guesthouse in Alfama, up near the castle. {alfama}
B: Lovely. My news: I'm on a 40-day streak learning Portuguese on Duolingo. {duolingo}
A: Why Portuguese?
B: Partly because of Lisbon memories, partly because one of the other nurses at the clinic is from Porto and teases me. {porto}
A: Which clinic are you at again?
B: Still Redland Vets, six years now. Mostly cats and rabbits, the odd tortoise. {redland}
A: The odd tortoise is my favourite kind of tortoise.
B: We had one come in last week called Sir Reginald who is eighty years old. {tortoise}
A: Eighty! He's older than my mum.
B: He was also the calmest patient of the week.
"""),
    ("2023-03-12", "18:45", """
B: Okay, don't laugh, but I broke my wrist. {wrist}
A: What?! How?
B: Cycling to work on Monday morning, black ice on the Downs, went straight over the handlebars. {wrist_how}
A: Ben! Which wrist?
B: The left one, which is very bad news for a bass player. {wrist_left}
A: Oh no, the gig.
B: The cast comes off in about five weeks, so the 15th of April is not happening. We've asked The Fleece to move us. {gig_move}
A: I'm so sorry. Are you off work?
B: Two weeks off, then light duties. I can't hold a struggling cat with one hand. {off_work}
A: Are Miso and Tofu looking after you?
B: Miso sits on the cast, which I think is support. Tofu is scared of it.
A: Do you need anything? I could send a parcel.
B: Send biscuits and bad jokes.
A: Deal. My news is smaller: I made my first mug at Clayworks and the handle actually stayed on. {first_mug}
B: Progress!
A: It's glazed a sort of sea green. I'm keeping it for your birthday. {sea_green}
B: I'll drink tea out of it with my one good hand.
A: Also Mum is walking with a frame now, so the knee is getting there.
B: That's brilliant. Tell her we're knee and wrist buddies.
A: She laughed at that, for the record.
"""),
    ("2023-04-02", "11:20", """
A: How's the wrist, is the cast off?
B: Came off on Thursday! It's thin and weird-looking but it works. {cast_off}
A: Can you play?
B: Slowly. The physio gave me putty to squeeze. I practise scales for twenty minutes a day. {physio}
A: And the gig?
B: The Fleece moved us to Saturday 22 April. Same bill, one week later. {gig_new_date}
A: Perfect, I can still come. I'll change my train ticket.
B: You're a star.
A: I've started a book club at work, by the way. Six of us, once a month. {book_club}
B: What's the first book?
A: Braiding Sweetgrass by Robin Wall Kimmerer. Half the club loves it and half think it's too slow. {sweetgrass}
B: Which half are you in?
A: The loving half. It made me want to grow beans.
B: Talking of beans, Sam wants us to get an allotment.
A: Do it! You can grow me some courgettes.
B: We're on a waiting list. Apparently it's two years in Bristol. {allotment}
A: Two years for a patch of mud, that's very Bristol.
B: Anything new with Pepper?
A: She had her annual jab and weighed in at 13 kilos, which the vet called "solid". {pepper_13}
B: That's a vet's polite way of saying chunky.
A: I know. She's on fewer treats.
"""),
    ("2023-04-23", "13:05", """
A: Last night was amazing. My ears are still ringing.
B: Thank you so much for coming all the way down!
A: Wouldn't have missed it. How many people were there in the end?
B: The promoter said about 120, which is our biggest crowd ever. {crowd}
A: The room was packed. And your wrist held up!
B: It ached by the last song but I got through the whole set, eleven songs. {eleven_songs}
A: The slow one in the middle, what was it called?
B: "Harbour Lights". It's the one I wrote about my grandad's boat. {harbour_lights}
A: It made the woman next to me cry.
B: That's the best review we've ever had.
A: Sam was dancing the whole time, I love Sam.
B: Sam loves you too. Did the train back go okay?
A: It was delayed 40 minutes at Birmingham, so I got home at midnight. {train_delay}
B: Sorry! Who was looking after Pepper?
A: My neighbour Mrs Patel. She spoils her rotten, Pepper came back smelling of samosas. {mrs_patel}
B: Ha. Did you tell the book club you skipped the meeting for a rock gig?
A: I told them it was cultural research.
B: What's next on the reading list?
A: Piranesi by Susanna Clarke. {piranesi}
B: Oh, I loved that. The house with the tides. {tides}
A: No spoilers! I've only read twenty pages.
B: My lips are sealed.
"""),
    ("2023-05-21", "17:40", """
B: Welcome back! How was Lisbon?
A: Honestly one of the best weeks I've had in years. {lisbon_good}
B: Tell me everything.
A: The guesthouse had a tiny balcony looking over the river, and the owner, Dona Fátima, made us coffee every morning. {fatima}
B: Us?
A: I went with my friend Joanna from pottery in the end, I forgot to tell you. {joanna}
B: Nice. Did you do the tram?
A: Tram 28, twice. The first time it was so packed I saw nothing but someone's armpit. {tram28}
B: Ha, classic. And Sintra?
A: We did Sintra on the Wednesday. Pena Palace really does look like an iced cake, you were right. {sintra}
B: Told you. What was the food like?
A: I ate a custard tart every single day. The best ones were at Manteigaria, warm out of the oven. {manteigaria}
B: Jealous.
A: The bad news is I got properly sunburnt on the beach at Cascais, I was bright red for two days. {sunburn}
B: Oh no. Factor 50 next time.
A: And I left my sunglasses on the train back from Cascais. {sunglasses}
B: Lisbon has them now. It's a tax.
A: How were things with you?
B: The cats were fine, and I've been thinking about adopting a third one. {third_cat_idea}
A: A third! What does Sam think?
B: Sam says yes if it's not a kitten. Kittens destroy everything. {sam_kitten}
A: Adult cat from the shelter then?
B: Exactly, I volunteer at the Bristol Cat Rescue on Sundays, so I've got my eye on a few. {volunteer}
A: You're going to come home with five.
"""),
    ("2023-06-18", "20:10", """
B: I have news. Meet Bean. {bean}
A: Oh my god, a new cat!
B: A five-year-old tabby from the rescue, she only has one eye but she doesn't care. {bean_eye}
A: She's gorgeous. How are Miso and Tofu taking it?
B: Miso hissed for two days and now they sleep back to back. Tofu still hides. {bean_intro}
A: Give it a month.
B: So that's three cats now, and Sam has declared it the absolute maximum. {three_cats}
A: I'll believe that when I see it.
B: How's work with you?
A: Honestly a bit flat. The east Leeds route project got cancelled by the council. {project_cancelled}
B: After all that work?
A: Eight months of modelling, shelved in one meeting. I'm starting to look at other jobs. {job_search}
B: What kind of thing?
A: Maybe health data. My cousin Dev works in the NHS and says they're desperate for analysts. {dev}
B: You'd be great at that.
A: Maybe. On a nicer note, I've started sea swimming. {sea_start}
B: In Yorkshire? Isn't it freezing?
A: It was 14 degrees at Whitby last weekend. My hands went numb after ten minutes. {whitby_14}
B: You're braver than me.
A: I bought a wetsuit from a charity shop for fifteen quid, so I'm committed now. {wetsuit}
B: Sounds like you need the sea more than the job.
A: Don't tempt me.
"""),
    ("2023-07-16", "09:55", """
A: Morning! How was your mum's party?
B: So good. Mum turned sixty and we did a garden party at my aunt's house in Cardiff. {mum60}
A: Did the band play?
B: Just me and the guitarist, an acoustic set. I also made a playlist of every song she's loved since 1975. {playlist}
A: That's so sweet. Did she cry?
B: At "Dancing Queen", of course.
A: I went to Whitby again yesterday and swam at sunrise. {sunrise_swim}
B: At sunrise? What time is that?
A: I was in the water at 5 am. The sea was flat and pink and there was nobody else on the beach. {flat_pink}
B: That sounds unreal.
A: It's the only time my head goes completely quiet. The sea at sunrise is my favourite thing now. {sea_quiet}
B: I'm a bit jealous, I've not seen the sea at sunrise in years.
A: Come up in August and I'll drag you in.
B: I'll come and watch with a coffee.
A: Also, I applied for a job. Data lead at Leeds Teaching Hospitals. {applied}
B: Dev's tip paid off! When do you hear?
A: The interview is on the 27th of July. {interview}
B: You'll smash it.
A: I'm already nervous. They want a presentation on waiting lists.
B: You did a whole talk on bus waiting times, it's the same thing with more hand sanitiser.
A: Ha, I'll use that line.
B: And how's Bean?
A: Wait, I'm asking you that!
B: Bean is great. She has learned to open the kitchen drawer where the treats are. {bean_drawer}
A: A genius with one eye.
"""),
    ("2023-08-13", "15:30", """
A: Big news: I'm an auntie! {auntie}
B: Congratulations! Lena had the baby? {lena_baby}
A: A little girl called Iris, born on the 3rd of August, 3.4 kilos. {iris}
B: Iris is a beautiful name. How's Lena?
A: Tired but glowing. Mum cried for a whole afternoon.
B: And Tom?
A: Tom, Lena's husband, has changed forty nappies and is very proud of the number. {tom}
B: Is there more news, you sound like there's more.
A: There is. I got the hospital job! {got_job}
B: YES. I knew it.
A: I start on the 11th of September as data lead for the outpatients team. {start_date}
B: How did Northline take it?
A: My manager was really nice about it. I'm working my notice until the end of August. {notice}
B: A new niece and a new job in one month, what a summer.
A: What's new with you?
B: Sam started a new job too, teaching music at a secondary school in Bedminster. {sam_teacher}
A: Oh that's perfect for Sam.
B: And it's been so hot that the cats just lie flat on the kitchen tiles all day. {heat_tiles}
A: Pepper does the same on the bathroom floor.
B: We bought a fan just for them.
A: Of course you did.
"""),
    ("2023-09-10", "19:20", """
A: Well, that's my last day at Northline done. They gave me a cake shaped like a number 56 bus. {bus_cake}
B: Ha! The bus of your nightmares!
A: Exactly the one. I nearly cried eating it.
B: End of an era. You were there a long time.
A: Five years. Tomorrow I start at the hospital. {five_years}
B: Are you nervous?
A: Very. I've also signed up for the Yorkshire Half Marathon on the 8th of October, which was maybe not smart timing. {half_signup}
B: A half marathon! Since when do you run?
A: Since June. I run with Pepper three times a week and she is faster than me. {run_pepper}
B: What's your longest run so far?
A: Eighteen kilometres last Sunday, along the canal to Rodley and back. {longest_run}
B: That's serious.
A: What about you, any holidays?
B: Sam and I are going to Japan in October! Two weeks, the 14th to the 28th. {japan}
A: Amazing! Where?
B: Osaka, Kyoto and a day in Nara to see the deer. {japan_places}
A: Who's looking after the cats?
B: My neighbour's teenager, Kai, for twenty pounds a day. He's very serious about it. {kai}
A: Bean will have him opening drawers in no time.
B: He's already been warned about the drawer.
"""),
    ("2023-10-01", "21:05", """
B: So how are the first weeks at the hospital?
A: Busy but good. There are six of us in the team and my boss Priya is brilliant. {priya}
B: What are you working on?
A: A dashboard of waiting lists for every outpatient clinic, so managers can see who's waited longest. {dashboard}
B: That sounds like it matters.
A: It does, which is a nice change from bus routes.
B: How's the commute?
A: Twenty minutes on the bike along the canal. {bike_commute}
B: And the half marathon is next week!
A: Don't remind me. My knee started hurting after a long run. {knee_hurt}
B: Rest it. Seriously, you sound like my clients' dogs.
A: About dogs: Pepper had a checkup and she's up to 14 kilos. {pepper_14}
B: Up from 13 in spring? That's a lot for a beagle. {beagle2}
A: The vet wants her down to 12, so no more cheese. {pepper_12}
B: Weigh her food and swap treats for carrot sticks. Our clinic does that with every chubby beagle. {carrot}
A: She will be furious.
B: She'll adapt. They always do.
A: Are you packed for Japan?
B: Almost. We bought a Japan Rail Pass for seven days to get from Osaka to Kyoto and back. {rail_pass}
A: Very organised.
B: Sam made a spreadsheet. It has colour coding.
A: I respect Sam even more now.
"""),
    ("2023-10-29", "18:15", """
A: You're back! How was Japan?
B: Incredible. I want to live in Kyoto. {kyoto}
A: What was the best bit?
B: Fushimi Inari at six in the morning, thousands of orange gates and nobody else there. {inari}
A: That sounds like my sunrise swims.
B: Exactly what I thought of! It was very quiet.
A: Did the deer in Nara bow?
B: They bowed and then one ate Sam's map. {deer_map}
A: Ha! And the food?
B: The best ramen of my life was in a tiny place in Osaka with eight seats. {ramen}
A: Jealous. Were the cats okay?
B: Kai sent us a photo report every day. Bean got into the drawer twice. {kai_report}
A: Of course she did. Your turn to ask me.
B: The half marathon! How did it go?
A: I finished in 2 hours 7 minutes and 41 seconds. {half_time}
B: That's brilliant! Did the knee hold?
A: It was fine, it was my feet. I got a blister the size of a coin. {blister}
B: Worth it.
A: I also have news: I'm moving to York in November. {york}
B: York! Why York?
A: Jonas lives there and we're moving in together. {jonas}
B: Wait, moving in with Jonas? That's huge.
A: We've been together a year and a half, it feels right.
B: What about the job in Leeds?
A: The train from York to Leeds is only 25 minutes, so I'll commute. {york_train}
B: I'm so happy for you.
"""),
    ("2023-11-19", "16:40", """
A: Greetings from York! We moved last Saturday. {moved}
B: How's the new place?
A: A terraced house in Leeman Road with a small garden, ten minutes walk from the station. {leeman}
B: A garden! Pepper must be thrilled.
A: She dug three holes on the first day and Jonas pretended not to mind. {holes}
B: Sounds like she's settled in.
A: Better than me, I still can't find the bread knife.
B: Is the commute okay?
A: It's fine, I read on the train. I finished Piranesi at last. {finished_piranesi}
B: Finally! What did you think?
A: I loved the statues. I understand why you liked it.
B: Sadly things are harder here. Tofu is ill.
A: Oh no, what's wrong?
B: Kidney disease. The bloods came back last week, it's early stage. {tofu_kidney}
A: I'm so sorry Ben. Can it be treated?
B: A special renal diet and fluids at home. She could have years if we catch it early. {renal_diet}
A: You're the best person for her to have as an owner.
B: Being a vet nurse helps. Giving fluids to my own cat is still hard though. {vet_nurse}
A: How old is she now?
B: Twelve. Miso is ten and Bean is five. {cat_ages}
A: Give her a gentle stroke from me.
B: I will.
"""),
    ("2023-12-10", "12:00", """
B: Ada, I have news. Sam and I are engaged! {engaged}
A: WHAT! Congratulations! Tell me everything!
B: I asked on the 2nd of December on the Clifton Suspension Bridge, just at sunset. {engaged_where}
A: That's so romantic. Did Sam cry?
B: Sam cried, I cried, a stranger walking his dog clapped.
A: Have you got a date?
B: We're thinking summer 2025, probably in Cardiff near Mum. {wedding_plan}
A: I'm going to need a new dress.
B: You're going to need to be my best person, actually. {best_person}
A: Ben! Yes. Yes of course.
B: Good, because I already told Sam you'd say yes.
A: My news is boring next to that. I joined a new pottery studio in York. {york_studio}
B: Not boring. Which one?
A: The Kiln House, near Bootham. They have a wood-fired kiln, which is a whole new thing. {kiln_house}
B: Are you still using your Leeds clay?
A: No, but I brought Marguerite a box of chocolates when I left Clayworks.
B: How's the hospital?
A: The waiting list dashboard goes live in February, so I'm busy. {dashboard_feb}
B: And Christmas?
A: We're going to Lena's for Christmas to spoil Iris. {christmas}
B: Her first Christmas!
A: I've already bought her a knitted fox.
"""),
    ("2023-12-31", "22:10", """
A: Last chat of the year! Where are you?
B: At home with Sam and the cats. We're too old for parties now.
A: Same. Jonas is making mulled wine and Pepper is asleep by the fire.
B: Let's do a year review. What was your best moment of 2023?
A: The sunrise swims at Whitby. Or holding Iris for the first time. Both. {best_moment}
B: Mine was the gig in April, then the engagement.
A: Worst moment?
B: Tofu's diagnosis. Though she's doing better on the new food. {tofu_better}
A: And the wrist?
B: Oh, I'd forgotten the wrist. That too.
A: Mine was the route project getting cancelled. It felt like a waste of a year.
B: But it got you to the hospital.
A: True. Resolutions?
B: I'm going to stop taking sugar in my coffee. {no_sugar}
A: That's the smallest resolution I've ever heard.
B: Small and achievable. You?
A: I want to learn to sail. There's a club on the Ouse that does beginners' courses in spring. {sail}
B: From sea swimming to sailing. You're turning into a fish.
A: A fish with a boat.
B: Also, the band's going to record an EP in January. {ep_plan}
A: Finally! How many songs?
B: Five, including "Harbour Lights". {ep_songs}
A: Yes! That's the one that made the woman cry.
B: Happy new year, Ada.
A: Happy new year, Ben.
"""),
    ("2024-01-14", "14:25", """
B: How's York in the snow?
A: Beautiful and slippery. I fell over outside the Minster on Thursday, only my pride is bruised. {fell}
B: Black ice is the enemy. Says the man who broke his wrist on it.
A: Exactly what I thought as I went down.
B: How's Iris?
A: She's got her first tooth and she's chewing everything, including Lena's necklace. {tooth}
B: Teething is hard.
A: Lena hasn't slept properly since Christmas.
B: The EP recording started last weekend.
A: Where are you recording?
B: A studio in an old chapel in Stroud called Greenhouse Sound. {studio}
A: That sounds beautiful.
B: The drums sound huge in there. We did three songs on Saturday. {three_recorded}
A: When can I hear it?
B: We're aiming to release it in March. {ep_march}
A: What's it called?
B: "Night Buses". Named after you, sort of. {night_buses}
A: I'm honoured. Or insulted.
B: Both. How's the sailing plan?
A: I booked the beginners' course, it starts on the 13th of April, six Saturdays. {sail_booked}
B: Brilliant. Get a life jacket with a whistle.
A: Jonas already bought me one.
"""),
    ("2024-01-28", "19:50", """
B: I've got job news of my own now.
A: Tell me!
B: I'm leaving Redland Vets. I got the head nurse job at Harbourside Vets. {head_nurse}
A: Ben! That's huge. Congratulations.
B: Thanks. I start on the 5th of February. It's a bigger clinic, twelve nurses, and they do exotics. {harbourside}
A: More tortoises!
B: And snakes. I'm a bit scared of the snakes.
A: What made you want to move?
B: Seven years at Redland is a long time, and I wanted to train younger nurses. {why_move}
A: You'll be a great boss.
B: We'll see. How's Pepper's diet?
A: It worked! She weighed 12.5 kilos last week, down from 14. {pepper_125}
B: The carrot sticks did it!
A: The carrot sticks and a lot of betrayal in her eyes.
B: Pepper had a birthday too, right?
A: Yes, she turned seven on the 20th of January. We made her a dog-safe cake. {pepper_7}
B: Happy birthday to the sock thief.
A: And my mum is walking the dog when she visits now, her knee is fully healed. {mum_healed}
B: That's so good to hear.
A: A year ago she couldn't get up the stairs.
B: Good year for knees and wrists.
"""),
    ("2024-02-11", "10:35", """
A: How was your first week as head nurse?
B: Exhausting but good. The team is lovely and nobody's bitten me yet. {first_week}
A: Not even the snakes?
B: The snake was very polite. A corn snake called Noodle. {noodle}
A: Noodle! I love it.
B: How's your dashboard?
A: It went live on Monday. Priya presented it to the hospital board and they loved it. {dashboard_live}
B: Congratulations! Months of work.
A: Five months. And it already found forty patients who'd been waiting over a year. {forty_patients}
B: That's real impact.
A: It feels different from the bus stuff, that's for sure.
B: Wedding update: we booked the venue. {venue}
A: Where?
B: A barn near Penarth, the 19th of July 2025. {barn}
A: Put it in my diary. I'll be there with a speech.
B: Keep it short and don't mention the wrist.
A: I promise nothing.
B: Any plans for the summer?
A: Jonas and I want to go to Croatia in June, sailing if I pass the course. {croatia}
B: You'll be a captain by then.
A: And maybe a swim in the Adriatic at sunrise.
B: Of course. You and your sunrises.
"""),
    ("2024-02-25", "16:05", """
B: Big day, the EP is out!
A: I listened to it three times this morning. "Harbour Lights" sounds even better recorded.
B: That means a lot. It came out on Friday, earlier than planned. {ep_out}
A: Why earlier?
B: The studio had a free slot and the mastering was done in a week. {mastering}
A: Where can people buy it?
B: Bandcamp, and we have 200 CDs to sell at gigs. {cds}
A: I'll buy five CDs and give them to Jonas's family.
B: Ha, please do. How's Tofu, you asked last time?
A: I did! How is she?
B: Stable. Her kidney numbers haven't changed in three months, the vet is happy. {tofu_stable}
A: That's such a relief.
B: She still hates the fluids but she forgives me afterwards.
A: I'm coming to Bristol in March, by the way, for Sam's birthday. {bristol_march}
B: Yes! Stay with us. Bean will sit on your face at 6 am.
A: I'll bring Pepper if that's okay with the cats.
B: Absolutely not okay with the cats. Leave her with Jonas.
A: Fine, fine. Mrs Patel is too far away now anyway.
B: Do you miss Leeds?
A: Sometimes, but York feels like home now. The garden, the river, the walk to the station. {york_home}
B: I'm glad. It's been quite a year for both of us.
A: It really has.
"""),
]

# (kind, question, evidence labels, as_of)
# kinds: single (one fact), when (asks for a date), time (an English time expression narrows it),
# multihop (two turns, or a later turn updates an earlier one), paraphrase (few words shared with
# the evidence), function (phrased with many function words).
QUESTIONS: list[tuple[str, str, str, str | None]] = [
    # --- session 1 ---
    ("single", "What are the names of Ben's cats?", "cats2", None),
    ("single", "What did I sign up for as my new year's resolution?", "pottery_start", None),
    ("single", "Where is the Clayworks studio?", "clayworks", None),
    ("single", "Which night of the week was my pottery class?", "clayworks", None),
    ("single", "What is the name of Ben's band?", "band band_bass", None),
    ("single", "What instrument does Ben play?", "band_bass wrist_left", None),
    ("paraphrase", "Which company did I work for before the hospital?", "northline bus_cake", None),
    ("when", "When did Pepper eat a sock?", "sock", None),
    ("paraphrase", "Did my dog ever swallow a piece of clothing?", "sock", None),
    ("function", "What was it that the cats were doing on top of the guitar case?", "cats2", None),
    ("single", "What colour is Miso?", "cats2", None),
    # --- session 2 ---
    ("single", "What did I make at my first pottery class?", "first_bowl", None),
    ("single", "Who teaches the pottery class at Clayworks?", "marguerite", None),
    ("single", "How long has Marguerite been making pots?", "marguerite", None),
    ("single", "Where was the Late Trains gig booked?", "gig_booked", None),
    ("when", "When was Ben's gig at The Fleece first booked for?", "gig_booked", None),
    ("single", "Where did I want to go on holiday in spring?", "lisbon_idea", None),
    ("single", "What did Ben recommend doing in Lisbon?", "sintra_tip tram_tip lisbon_2019", None),
    ("paraphrase", "Which palaces were said to look like a cake?", "sintra_tip sintra", None),
    ("when", "When did Ben visit Lisbon with Sam?", "lisbon_2019", None),
    ("function", "What was the thing that was wrong with the bowl that I made?", "first_bowl", None),
    # --- session 3 ---
    ("single", "What operation did my mum have?", "knee_replacement mum_knee", None),
    ("when", "When did my mum have her knee operation?", "mum_knee", None),
    ("single", "Where does my mum live?", "harrogate", None),
    ("single", "How much were the flights to Lisbon?", "lisbon_flights", None),
    ("when", "What dates did I fly to Lisbon?", "lisbon_flights", None),
    ("single", "Which neighbourhood was the Lisbon guesthouse in?", "alfama", None),
    ("single", "What language is Ben learning?", "duolingo", None),
    ("single", "Which vet clinic did Ben work at in 2023?", "redland", None),
    ("single", "How old is the tortoise that came into Ben's clinic?", "tortoise", None),
    ("paraphrase", "What is the name of the elderly reptile patient?", "tortoise", None),
    ("time", "What did my mum have done in February 2023?", "mum_knee knee_replacement", None),
    ("function", "Why is it that Ben has been learning the language?", "porto", None),
    # --- session 4 ---
    ("single", "How did Ben break his wrist?", "wrist_how", None),
    ("when", "When did Ben break his wrist?", "wrist wrist_how", None),
    ("single", "Which wrist did Ben break?", "wrist_left", None),
    ("paraphrase", "What happened to Ben on his bike in the ice?", "wrist_how", None),
    ("single", "How long was Ben off work after the accident?", "off_work", None),
    ("single", "What colour is the mug I made?", "sea_green", None),
    ("single", "Who is the mug I made at pottery for?", "sea_green", None),
    ("time", "What did Ben injure in March 2023?", "wrist wrist_left", None),
    ("time", "What did I make at Clayworks in March?", "first_mug", "2023-04-30"),
    ("function", "Was it the case that the handle of my first mug stayed on?", "first_mug", None),
    # --- session 5 ---
    ("when", "When did Ben's cast come off?", "cast_off", None),
    ("single", "What exercises did the physio give Ben?", "physio", None),
    ("when", "What date was the gig moved to?", "gig_new_date", None),
    ("single", "How many people are in my book club at work?", "book_club", None),
    ("single", "What was the first book club book?", "sweetgrass", None),
    ("single", "Who wrote Braiding Sweetgrass?", "sweetgrass", None),
    ("single", "How long is the wait for an allotment in Bristol?", "allotment", None),
    ("paraphrase", "Are Ben and Sam going to grow their own vegetables?", "allotment", None),
    ("time", "How much did Pepper weigh in April 2023?", "pepper_13", None),
    ("time", "What book did the book club start with in spring 2023?", "sweetgrass", None),
    # --- session 6 ---
    ("single", "How many people came to the Late Trains gig?", "crowd", None),
    ("single", "How many songs did the band play at The Fleece?", "eleven_songs", None),
    ("single", "What is Harbour Lights about?", "harbour_lights", None),
    ("paraphrase", "Which song did Ben write about his grandfather?", "harbour_lights", None),
    ("single", "Why did I get home so late after the gig?", "train_delay", None),
    ("single", "Who looked after Pepper while I was in Bristol?", "mrs_patel", None),
    ("paraphrase", "Why did my dog smell of Indian food?", "mrs_patel", None),
    ("single", "What was the second book club book?", "piranesi", None),
    ("time", "How big was the crowd at Ben's concert in April 2023?", "crowd", None),
    ("function", "Where was it that the train that I was on got delayed?", "train_delay", None),
    ("time", "Who looked after my dog when I went to the gig last April?", "mrs_patel", "2024-02-25"),
    # --- session 7 ---
    ("single", "Who ran the guesthouse in Lisbon?", "fatima", None),
    ("single", "Who did I go to Lisbon with?", "joanna", None),
    ("single", "Which tram did I take in Lisbon?", "tram28", None),
    ("single", "Where were the best custard tarts in Lisbon?", "manteigaria", None),
    ("single", "Where did I get sunburnt?", "sunburn", None),
    ("single", "What did I lose in Portugal?", "sunglasses", None),
    ("when", "When did I go to Sintra?", "sintra", None),
    ("paraphrase", "Which bakery had the best pastries on my holiday?", "manteigaria", None),
    ("time", "What did I eat every day in Lisbon in May 2023?", "manteigaria", None),
    ("single", "Where does Ben volunteer?", "volunteer", None),
    ("single", "What did Sam say about getting another cat?", "sam_kitten", None),
    ("time", "What did I leave on a train last May?", "sunglasses", "2024-02-25"),
    ("function", "Who was it that I ended up going on the trip to Lisbon with?", "joanna", None),
    # --- session 8 ---
    ("single", "What is the name of Ben's newest cat?", "bean", None),
    ("single", "How old was Bean when Ben adopted her?", "bean_eye", None),
    ("paraphrase", "Which of Ben's cats is missing an eye?", "bean_eye", None),
    ("when", "When did Ben adopt Bean?", "bean", None),
    ("multihop", "How many cats does Ben have now?", "three_cats", "2024-02-25"),
    ("single", "How did Miso react to the new cat?", "bean_intro", None),
    ("single", "Why did the east Leeds route project end?", "project_cancelled", None),
    ("single", "How long did I spend on the route project?", "job_search", None),
    ("single", "Who told me the NHS needs analysts?", "dev", None),
    ("single", "How cold was the sea at Whitby in June?", "whitby_14", "2023-08-01"),
    ("single", "How much did my wetsuit cost?", "wetsuit", None),
    ("time", "What hobby did I start in June 2023?", "sea_start", None),
    ("paraphrase", "Where did I buy my swimming suit for the cold water?", "wetsuit", None),
    ("function", "What was it that made me start to look for another job?", "project_cancelled job_search", None),
    # --- session 9 ---
    ("single", "How old did Ben's mum turn?", "mum60", None),
    ("single", "Where was Ben's mum's birthday party?", "mum60", None),
    ("single", "What present did Ben make for his mum?", "playlist", None),
    ("when", "When did I swim at sunrise in Whitby?", "sunrise_swim", None),
    ("single", "What time did I get into the sea for the sunrise swim?", "flat_pink", None),
    ("time", "What did I say about the sea last summer?", "sea_quiet flat_pink", "2024-02-25"),
    ("function", "What do I like about the sea and sunrise?", "sea_quiet", None),
    ("single", "What job did I apply for at the hospital?", "applied", None),
    ("when", "When was my interview at the hospital?", "interview", None),
    ("single", "What trick has Bean learned?", "bean_drawer", None),
    ("paraphrase", "Which cat figured out how to get to the snacks?", "bean_drawer", None),
    ("time", "Where did Ben's family celebrate in July 2023?", "mum60", None),
    ("paraphrase", "Why do I go into the water so early in the morning?", "sea_quiet", None),
    # --- session 10 ---
    ("single", "What is my niece called?", "iris", None),
    ("when", "When was Iris born?", "iris", None),
    ("single", "How much did Iris weigh when she was born?", "iris", None),
    ("single", "Who is Iris's mum?", "lena_baby", None),
    ("when", "When did I start at the hospital?", "start_date five_years", None),
    ("single", "What is my job title at the hospital?", "start_date applied", None),
    ("single", "Where does Sam teach?", "sam_teacher", None),
    ("single", "What does Sam teach?", "sam_teacher", None),
    ("paraphrase", "How did Ben's pets cope with the hot weather?", "heat_tiles", None),
    ("time", "What happened in my family in August 2023?", "auntie iris", None),
    ("when", "When was I offered the hospital job?", "got_job", None),
    ("function", "How many of the nappies has Tom changed so far?", "tom", None),
    # --- session 11 ---
    ("single", "What kind of cake did I get when I left Northline?", "bus_cake", None),
    ("single", "How long did I work at Northline Buses?", "five_years", None),
    ("single", "Which race did I sign up for?", "half_signup", None),
    ("when", "When is the Yorkshire Half Marathon?", "half_signup", None),
    ("single", "Who do I go running with?", "run_pepper", None),
    ("single", "What was my longest training run?", "longest_run", None),
    ("when", "When are Ben and Sam going to Japan?", "japan", None),
    ("single", "Which cities did Ben visit in Japan?", "japan_places", None),
    ("single", "Who looked after Ben's cats while he was in Japan?", "kai kai_report", None),
    ("single", "How much does Kai get paid for cat sitting?", "kai", None),
    ("time", "What was my last day at work like in September 2023?", "bus_cake", None),
    ("paraphrase", "How far did I jog beside the canal?", "longest_run", None),
    # --- session 12 ---
    ("single", "Who is my boss at the hospital?", "priya", None),
    ("single", "How big is my team at the hospital?", "priya", None),
    ("single", "What am I building at the hospital?", "dashboard", None),
    ("single", "How do I get to work at the hospital?", "bike_commute york_train", None),
    ("single", "How much did Pepper weigh at her autumn checkup?", "pepper_14", None),
    ("single", "What weight does the vet want Pepper to get down to?", "pepper_12", None),
    ("single", "What did Ben suggest instead of dog treats?", "carrot", None),
    ("single", "What rail pass did Ben and Sam buy?", "rail_pass", None),
    ("paraphrase", "What advice did Ben give me about my overweight dog?", "carrot", None),
    ("time", "What was the matter with my knee in October 2023?", "knee_hurt", None),
    ("function", "What was it that the vet said about the weight of my dog?", "pepper_14 pepper_12", None),
    # --- session 13 ---
    ("single", "Where does Ben want to live after Japan?", "kyoto", None),
    ("single", "What was the best part of Ben's Japan trip?", "inari", None),
    ("single", "What did the deer in Nara do to Sam?", "deer_map", None),
    ("single", "Where did Ben eat the best ramen of his life?", "ramen", None),
    ("single", "What was my half marathon time?", "half_time", None),
    ("single", "What injury did I get from the half marathon?", "blister", None),
    ("single", "Why did I move to York?", "jonas", None),
    ("single", "Who is Jonas?", "jonas", None),
    ("single", "How long does the train from York to Leeds take?", "york_train", None),
    ("paraphrase", "How quickly did I complete the 21 kilometre race?", "half_time", None),
    ("time", "What did Ben see at six in the morning in October 2023?", "inari", None),
    ("time", "What did Bean do while Ben was away last October?", "kai_report", "2024-02-25"),
    ("function", "How long have I been together with the person I moved in with?", "jonas", None),
    # --- session 14 ---
    ("when", "When did I move to York?", "moved york", None),
    ("single", "What street do I live on in York?", "leeman", None),
    ("single", "What did Pepper do in the new garden?", "holes", None),
    ("single", "What is wrong with Tofu?", "tofu_kidney", None),
    ("single", "How is Tofu's kidney disease treated?", "renal_diet", None),
    ("single", "How old are Ben's cats?", "cat_ages", None),
    ("when", "When did I finish reading Piranesi?", "finished_piranesi", None),
    ("paraphrase", "Which of Ben's cats has a problem with her kidneys?", "tofu_kidney", None),
    ("time", "Which cat got sick in November 2023?", "tofu_kidney", None),
    ("multihop", "Where did I live before I moved to York?", "leeds york_home", None),
    ("function", "What is the name of the road that the new house is on?", "leeman", None),
    # --- session 15 ---
    ("when", "When did Ben and Sam get engaged?", "engaged engaged_where", None),
    ("single", "Where did Ben propose to Sam?", "engaged_where", None),
    ("single", "When is Ben's wedding?", "wedding_plan barn", None),
    ("single", "What did Ben ask me to be at the wedding?", "best_person", None),
    ("single", "Which pottery studio did I join in York?", "york_studio kiln_house", None),
    ("single", "What kind of kiln does the Kiln House have?", "kiln_house", None),
    ("single", "Where did I spend Christmas 2023?", "christmas", None),
    ("single", "What present did I buy Iris?", "christmas", None),
    ("paraphrase", "Who popped the question on the bridge in Bristol?", "engaged_where", None),
    ("time", "What happened to Ben in December 2023?", "engaged_where", None),
    ("time", "What news did Ben share last December?", "engaged", "2024-02-25"),
    ("function", "What is it that Ben wants me to be at the wedding?", "best_person", None),
    # --- session 16 ---
    ("single", "What was my best moment of 2023?", "best_moment", None),
    ("single", "What was Ben's worst moment of the year?", "tofu_better", None),
    ("single", "What is Ben's new year's resolution?", "no_sugar", None),
    ("single", "What do I want to learn in 2024?", "sail", None),
    ("single", "Where is the sailing club?", "sail", None),
    ("single", "How many songs will be on the EP?", "ep_songs", None),
    ("paraphrase", "What small change did Ben promise for his morning drink?", "no_sugar", None),
    ("time", "What did we talk about on New Year's Eve 2023?", "best_moment no_sugar sail", None),
    ("function", "What is it that I want to learn to do on the river?", "sail", None),
    # --- session 17 ---
    ("single", "Where did I fall over in the snow?", "fell", None),
    ("when", "When did Iris get her first tooth?", "tooth", None),
    ("single", "Where did the Late Trains record their EP?", "studio", None),
    ("single", "What is the EP called?", "night_buses", None),
    ("single", "Why is the EP called Night Buses?", "night_buses", None),
    ("when", "When does my sailing course start?", "sail_booked", None),
    ("single", "How many Saturdays is the sailing course?", "sail_booked", None),
    ("paraphrase", "Where is the recording studio that used to be a church?", "studio", None),
    ("time", "What happened to me on the ice in January 2024?", "fell", None),
    ("time", "How many songs did the band record last month?", "three_recorded", "2024-02-11"),
    ("function", "What was it that Iris was chewing on when she got her tooth?", "tooth", None),
    # --- session 18 ---
    ("single", "Where does Ben work now?", "head_nurse harbourside", None),
    ("when", "When did Ben start his new job?", "harbourside", None),
    ("single", "How many nurses work at Harbourside Vets?", "harbourside", None),
    ("single", "Why did Ben leave Redland Vets?", "why_move", None),
    ("multihop", "How much does Pepper weigh now?", "pepper_125", "2024-02-25"),
    ("multihop", "How much weight did Pepper lose on her diet?", "pepper_125 pepper_14", None),
    ("when", "When is Pepper's birthday?", "pepper_7", None),
    ("single", "How old is Pepper?", "pepper_7", None),
    ("single", "How is my mum's knee now?", "mum_healed", "2024-02-25"),
    ("paraphrase", "What did Ben get promoted to?", "head_nurse", None),
    ("time", "What job news did Ben have in January 2024?", "head_nurse", None),
    ("multihop", "How many years did Ben work at Redland Vets?", "why_move redland", None),
    # --- session 19 ---
    ("single", "What is the snake at Ben's clinic called?", "noodle", None),
    ("single", "What kind of snake is Noodle?", "noodle", None),
    ("when", "When did my dashboard go live?", "dashboard_live", None),
    ("single", "Who presented the dashboard to the hospital board?", "dashboard_live", None),
    ("single", "What did the waiting list dashboard find?", "forty_patients", None),
    ("single", "Where is Ben's wedding venue?", "barn", None),
    ("when", "What is the date of Ben and Sam's wedding?", "barn", None),
    ("single", "Where are Jonas and I going in the summer?", "croatia", None),
    ("paraphrase", "How many people had been waiting more than twelve months?", "forty_patients", None),
    ("time", "What did Ben and Sam book in February 2024?", "venue barn", None),
    ("function", "How was it that the first week of the new job went for Ben?", "first_week", None),
    # --- session 20 ---
    ("when", "When did the Night Buses EP come out?", "ep_out", None),
    ("single", "Why did the EP come out early?", "mastering", None),
    ("single", "Where can I buy the Late Trains EP?", "cds", None),
    ("single", "How many CDs did the band make?", "cds", None),
    ("single", "How is Tofu doing now?", "tofu_stable", "2024-02-25"),
    ("single", "Why am I going to Bristol in March?", "bristol_march", None),
    ("single", "Do I miss Leeds?", "york_home", None),
    ("paraphrase", "Has Tofu's kidney illness got worse?", "tofu_stable", None),
    ("time", "What did Ben release last week?", "ep_out", "2024-03-01"),
    ("function", "Is it true that I am going to be bringing the dog with me to Bristol?", "bristol_march", None),
    # --- across sessions ---
    ("multihop", "Where does Ben work now, and where did he work before?", "head_nurse redland", None),
    ("multihop", "Has Ben's band released the EP they planned at new year?", "ep_plan ep_out", None),
    ("multihop", "Did I end up going to Lisbon in May like I planned?", "lisbon_idea lisbon_good", None),
    ("multihop", "Did Ben make it to the gig after breaking his wrist?", "eleven_songs", None),
    ("multihop", "Where did I do my pottery before and after moving?", "clayworks kiln_house", None),
    ("multihop", "How did the hospital job interview go?", "got_job", None),
    ("multihop", "Did Ben get the allotment he was waiting for?", "allotment", None),
    ("multihop", "What happened with the route project I worked on at Northline?", "project_cancelled northline", None),
    ("multihop", "How did the sea swimming I started in June go over the summer?", "sunrise_swim sea_quiet", None),
    ("multihop", "Did Ben's diet tip for my dog work?", "carrot pepper_125", None),
    ("paraphrase", "Where is Ben's colleague who makes fun of him from?", "porto", None),
    ("multihop", "How many cats did Ben have at the start of 2023?", "cats2", None),
    ("multihop", "What did Sam think about a third cat, and did they get one?", "sam_kitten bean three_cats", None),
    ("multihop", "Who did I go to Lisbon with, and where do I know her from?", "joanna", None),
    ("multihop", "Is Ben's wedding in Cardiff like he first said?", "wedding_plan barn", None),
    ("paraphrase", "Who is my sister's husband?", "tom", None),
    ("paraphrase", "What breed is my dog?", "beagle beagle2", None),
    ("paraphrase", "Which book is about a house with tides?", "piranesi tides", None),
    ("paraphrase", "Who cares for a sick pet with liquid injections at home?", "renal_diet vet_nurse", None),
    ("paraphrase", "What went wrong at the seaside near Lisbon?", "sunburn", None),
    ("time", "What did I do in October 2023?", "half_time york", None),
    ("multihop", "Where had I been on holiday just before I took up sea swimming?", "lisbon_good", None),
    ("time", "What did Ben do two weeks ago?", "first_week venue", "2024-02-25"),
    ("time", "What did Ben tell me about Japan last autumn?", "kyoto inari", "2024-02-25"),
    ("time", "What was Ben doing a year ago?", "wrist", "2024-03-12"),
    ("function", "What is it that I do with my dog to get fit?", "run_pepper", None),
    ("function", "Is there anything that I should know about the cat that has only one eye?", "bean_eye", None),
    ("function", "What was it that I said that I would do for my new year's resolution for this year?", "sail", "2024-02-25"),
    ("function", "Which of the things that happened to Ben in 2023 was the worst for him?", "tofu_better", None),
    ("time", "Where did Ada move in 2023?", "york moved", None),
    ("single", "What does Ada make at the Kiln House?", "york_studio", None),
    ("single", "What does Ben do for a living?", "vet_nurse head_nurse", None),
    ("single", "What is Sam's job?", "sam_teacher", None),
    ("paraphrase", "Who is Ada's boyfriend?", "jonas", None),
]
